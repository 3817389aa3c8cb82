package provider

import (
	"testing"
)

// BenchmarkDecode decodes every recorded stream of each shape, event by event.
func BenchmarkDecode(b *testing.B) {
	byShape := map[string][]recordedStream{}
	for _, rs := range recordedStreams(b) {
		byShape[rs.shape] = append(byShape[rs.shape], rs)
	}
	for _, name := range Names() {
		b.Run(name, func(b *testing.B) {
			size := 0
			for _, rs := range byShape[name] {
				for _, ev := range rs.events {
					size += len(ev)
				}
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var n int
			for b.Loop() {
				for _, rs := range byShape[name] {
					d, _ := New(name)
					for _, ev := range rs.events {
						ds, err := d.Event(ev)
						if err != nil {
							b.Fatal(err)
						}
						n += len(ds)
					}
				}
			}
			_ = n
		})
	}
}
