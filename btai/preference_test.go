package btai_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestJointPreferenceProduct: the T-maze whose preference over (where,
// reward) is one joint table, the product of where's uniform target and
// reward's softmax([0, 3, -6]) (pomdp/testdata/factorised-tmaze-joint.json),
// plans the same tree with the same node costs as its per-modality
// spelling, for every cost and both inference modes.
func TestJointPreferenceProduct(t *testing.T) {
	per, err := pomdp.Load("../pomdp/testdata/factorised-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	joint, err := pomdp.Load("../pomdp/testdata/factorised-tmaze-joint.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, cost := range []btai.Cost{btai.Classic, btai.PCost, btai.FEEF} {
		for _, inf := range []btai.Inference{btai.VMP, btai.Predictive} {
			var trees [2]*btai.Tree
			for k, m := range []*pomdp.Model{per, joint} {
				o := btai.DefaultOptions()
				o.Cost, o.Inference, o.Iterations = cost, inf, 30
				ag, err := btai.NewAgent(m, &o, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				if err := ag.Reset(context.Background(), 0); err != nil {
					t.Fatal(err)
				}
				if err := ag.Plan(context.Background()); err != nil {
					t.Fatal(err)
				}
				trees[k] = ag.Tree()
			}
			a, b := trees[0].Nodes, trees[1].Nodes
			if len(a) != len(b) {
				t.Fatalf("%v %v: %d nodes, joint %d", cost, inf, len(a), len(b))
			}
			for i := 1; i < len(a); i++ {
				if math.Abs(a[i].Local-b[i].Local) > 1e-9 || a[i].Action != b[i].Action || a[i].Parent != b[i].Parent {
					t.Errorf("%v %v: node %d: cost %.12g, joint %.12g", cost, inf, i, a[i].Local, b[i].Local)
					break
				}
			}
		}
	}
}
