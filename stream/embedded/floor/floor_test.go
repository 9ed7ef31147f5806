package floor_test

import (
	"context"
	"slices"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream/compat"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/embedded/floor"
)

// TestShimRefusesOnTheWire raises Metadata's floor to v7: the broker then
// advertises v7 as its minimum, and kafka-go's kafka.Conn, which sends v6,
// gets its connection closed instead of an answer.
func TestShimRefusesOnTheWire(t *testing.T) {
	shim := floor.New(map[int16]int16{compat.Metadata: 7})
	b, err := embedded.Start(embedded.Options{Topics: []string{"t"}, WrapListener: shim.Wrap})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	vs, err := compat.Probe(ctx, &kafka.Dialer{}, b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if got := vs[compat.Metadata]; got.Min != 7 || got.Max < 7 {
		t.Errorf("Metadata advertised as %v, want v7 and up", got)
	}
	if got := vs[compat.Fetch]; got.Min != 4 { // kfake's own minimum, untouched
		t.Errorf("Fetch advertised as %v, want kfake's v4 minimum", got)
	}
	conn, err := kafka.DialContext(ctx, "tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ReadPartitions("t"); err == nil {
		t.Fatal("Metadata v6 was answered")
	}
	if got, want := shim.Refused(), []floor.Request{{Key: compat.Metadata, Version: 6}}; !slices.Equal(got, want) {
		t.Errorf("refused %v, want %v", got, want)
	}
}
