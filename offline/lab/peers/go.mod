module github.com/dedupstream/dedupstream/offline/lab/peers

go 1.26.0

require (
	github.com/dedupstream/dedupstream v0.0.0
	github.com/ekzhu/minhash-lsh v0.0.0-20171225071031-5c06ee8586a1
	github.com/mfonda/simhash v0.0.0-20151007195837-79f94a1100d6
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-metro v0.0.0-20250106013310-edb8663e5e33 // indirect
	github.com/dgryski/go-minhash v0.0.0-20170608043002-7fe510aff544 // indirect
	github.com/dgryski/go-spooky v0.0.0-20170606183049-ed3d087f40e2 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/segmentio/kafka-go v0.4.51 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/dedupstream/dedupstream => ../../..
