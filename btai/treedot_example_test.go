package btai_test

import (
	"log"
	"os"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// The figure of a planning tree on the tiger: the root's children (listen,
// open-left, open-right) cost 2, 1 and 3, one visit each; the action the
// agent takes, open-left (most visited, then the lowest average cost), is
// drawn bold.
func ExampleTree_WriteDOT() {
	m, err := pomdp.Load("../examples/pomdp/tiger.json")
	if err != nil {
		log.Fatal(err)
	}
	var t btai.Tree
	t.Reset(m.NumActions(), nil)
	t.AddChildren(0, []float64{2, 1, 3})
	t.Propagate(0, btai.MinBackward)
	if err := t.WriteDOT(os.Stdout, m, t.BestAction(btai.MostVisited), nil); err != nil {
		log.Fatal(err)
	}
	// Output:
	// digraph  {
	// 	nodesep="0.15";rankdir="TB";ranksep="0.35";
	// 	n1[fillcolor="lightgray",label=<S<SUB>t</SUB><BR/><FONT POINT-SIZE="8">n=1 ḡ=1</FONT>>,margin="0.02",shape="ellipse",style="filled"];
	// 	n2[label=<S<SUB>(1)</SUB><BR/><FONT POINT-SIZE="8">n=1 ḡ=2</FONT>>,margin="0.02",shape="ellipse"];
	// 	n3[label=<S<SUB>(2)</SUB><BR/><FONT POINT-SIZE="8">n=1 ḡ=1</FONT>>,margin="0.02",penwidth="2.5",shape="ellipse"];
	// 	n4[label=<S<SUB>(3)</SUB><BR/><FONT POINT-SIZE="8">n=1 ḡ=3</FONT>>,margin="0.02",shape="ellipse"];
	// 	n1->n2[fontsize="8",label="listen"];
	// 	n1->n3[fontsize="8",label="open-left",penwidth="2.5"];
	// 	n1->n4[fontsize="8",label="open-right"];
	// }
}
