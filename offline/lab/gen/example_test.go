package gen_test

import (
	"fmt"

	"github.com/dedupstream/dedupstream/offline/lab/gen"
)

func ExampleGenerator_Wrap() {
	g := gen.New(gen.Options{Seed: 42, CopyRate: 0.8})
	for _, p := range g.Wrap("Port grain shipments rise", "Grain shipments rose.\n\nThe board was pleased.", "wire/17") {
		fmt.Println(p.Kind, p.ID, "from", p.Origin)
	}
	// Output:
	// original wire/17 from wire/17
	// mirror wire/17~mirror1 from wire/17
	// truncated wire/17~truncated2 from wire/17
}

func ExampleGenerator_Next() {
	g := gen.New(gen.Options{Seed: 1})
	for range 6 {
		p := g.Next()
		fmt.Println(p.ID, p.Kind, p.Origin, p.URL)
	}
	// Output:
	// p1 original p1 https://morningdigest.example.com/sport/2022/cook-problem-carry-answer-life-1.html
	// p2 exact p1 https://morningdigest.example.com/sport/2022/cook-problem-carry-answer-life-1.html?utm_source=feed&utm_medium=rss&ref=2
	// p3 original p3 https://techpulse.example.net/world/2021/day-space-clean-notice-wooden-3.html
	// p4 original p4 https://newsmirror.example.info/opinion/2024/event-form-stone-between-friend-4.html
	// p5 original p5 https://newsmirror.example.info/business/2019/report-rapid-wide-across-hand-5.html
	// p6 edited p1 https://morningdigest.example.com/sport/2022/cook-problem-carry-answer-life-6.html
}

func ExampleKind_String() {
	fmt.Println(gen.Original, gen.Mirror, gen.Edited, gen.Truncated, gen.Exact, gen.Reordered)
	// Output: original mirror edited truncated exact reordered
}
