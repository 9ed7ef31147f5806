package stream

// ReadGolden is readGolden for the external tests (package stream_test).
var ReadGolden = readGolden
