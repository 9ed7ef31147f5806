package cluster

// radixSort sorts items stably by the low keyBits bits of key, a byte at a time from the
// least significant, using tmp (as long as items) as scratch. It returns whichever of
// the two slices holds the result. A byte on which every key agrees costs one counting
// pass and no move.
func radixSort[T any](items, tmp []T, keyBits uint, key func(T) uint64) []T {
	for shift := uint(0); shift < keyBits && len(items) > 0; shift += 8 {
		var count [257]int
		for _, it := range items {
			count[(key(it)>>shift)&0xff+1]++
		}
		if count[(key(items[0])>>shift)&0xff+1] == len(items) {
			continue
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, it := range items {
			d := (key(it) >> shift) & 0xff
			tmp[count[d]] = it
			count[d]++
		}
		items, tmp = tmp, items
	}
	return items
}
