package si_test

import (
	"context"
	"log"
	"os"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// The search tree of one step on the tiger, after hearing the tiger on
// the left: the three actions with their expected free energy G and
// probability Q(u), the most probable (open-right, one step ahead) drawn
// bold.
func ExampleTree_WriteDOT() {
	m, err := pomdp.Load("../examples/pomdp/tiger.json")
	if err != nil {
		log.Fatal(err)
	}
	qs, err := pomdp.StatePosterior(nil, m, 0)
	if err != nil {
		log.Fatal(err)
	}
	p, err := si.NewPlanner(m, &si.Options{Depth: 1})
	if err != nil {
		log.Fatal(err)
	}
	res, err := p.Plan(context.Background(), qs)
	if err != nil {
		log.Fatal(err)
	}
	best := 0
	for u, q := range res.ActionProbs {
		if q > res.ActionProbs[best] {
			best = u
		}
	}
	tr, err := p.Tree()
	if err != nil {
		log.Fatal(err)
	}
	if err := tr.WriteDOT(os.Stdout, best, nil); err != nil {
		log.Fatal(err)
	}
	// Output:
	// digraph  {
	// 	nodesep="0.12";rankdir="TB";ranksep="0.3";
	// 	n1[fillcolor="lightgray",fontsize="10",label=<q<SUB>t</SUB>>,margin="0.03",shape="ellipse",style="filled"];
	// 	n2[fontsize="10",label=<listen<BR/>G=3.891 Q=0.0774>,margin="0.03",shape="box"];
	// 	n3[fontsize="10",label=<open-left<BR/>G=9.813 Q=0.000207>,margin="0.03",shape="box"];
	// 	n4[fontsize="10",label=<open-right<BR/>G=1.413 Q=0.922>,margin="0.03",penwidth="2.5",shape="box"];
	// 	n1->n2;
	// 	n1->n3;
	// 	n1->n4[penwidth="2.5"];
	// }
}
