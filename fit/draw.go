package fit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/agent"
)

// DrawSyntax lists the distributions ParseDraw reads, as a help text says
// them.
const DrawSyntax = "lognormal:MU,SIGMA (positive: ln x ~ N(MU, SIGMA)), logitnormal:MU,SIGMA (in (0, 1): logit x ~ N(MU, SIGMA)), uniform:LO,HI or fixed:X"

// Draw is the distribution of one parameter over simulated subjects, for a
// parameter-recovery study: each subject's value is drawn from it.
type Draw struct {
	Param agent.Param
	// Kind is "lognormal" (a positive parameter: ln x ~ N(A, B²)),
	// "logitnormal" (a parameter in (0, 1): logit x ~ N(A, B²)),
	// "uniform" (x ~ U(A, B)) or "fixed" (x = A). A and B of the first two
	// are the mean and SD on the fitting scale (Param.Domain.Transform).
	Kind string
	A, B float64
}

// Sample draws the parameter's value with rng: one standard normal
// (lognormal, logitnormal) or one uniform (uniform) from it, nothing for a
// fixed value.
func (d *Draw) Sample(rng *rand.Rand) float64 {
	switch d.Kind {
	case "lognormal", "logitnormal":
		return d.Param.Domain.Inverse(d.A + d.B*rng.NormFloat64())
	case "uniform":
		return d.A + (d.B-d.A)*rng.Float64()
	}
	return d.A
}

// String writes the draw as ParseDraw reads it.
func (d *Draw) String() string {
	if d.Kind == "fixed" {
		return fmt.Sprintf("%s=fixed:%v", d.Param.Name, d.A)
	}
	return fmt.Sprintf("%s=%s:%v,%v", d.Param.Name, d.Kind, d.A, d.B)
}

// ParseDraw reads one draw, NAME=KIND:ARGS with KIND and ARGS as
// DrawSyntax says (e.g. "alpha=lognormal:0,0.5"), against the agent's
// declared parameters ps. It refuses a parameter ps lacks, a number that is
// not finite, lognormal for a parameter that is not positive and
// logitnormal for one not in (0, 1), SIGMA < 0, a MU whose median rounds
// to the domain's edge (exp 1000 = +Inf), LO >= HI, and bounds or a
// fixed value outside the parameter's domain (its closure where
// agent.ClosedLearning accepts it: α = 0, η = 0, ω = 1). The error reads
// "fit: draw S: ..." (S the text, quoted when it has no "=").
func ParseDraw(s string, ps []agent.Param) (Draw, error) {
	name, spec, ok := strings.Cut(s, "=")
	if !ok {
		return Draw{}, fmt.Errorf("fit: draw %q: want NAME=DISTRIBUTION, e.g. alpha=lognormal:0,0.5 (%s)", s, DrawSyntax)
	}
	p, err := agent.FindParam(ps, strings.TrimSpace(name))
	if err != nil {
		return Draw{}, fmt.Errorf("fit: draw %s: %w", s, err)
	}
	kind, args, _ := strings.Cut(spec, ":")
	d := Draw{Param: p, Kind: strings.TrimSpace(kind)}
	var nums []float64
	for _, f := range strings.Split(args, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return Draw{}, fmt.Errorf("fit: draw %s: %q is not a finite number (want %s)", s, f, DrawSyntax)
		}
		nums = append(nums, x)
	}
	want := 2
	if d.Kind == "fixed" {
		want = 1
	}
	switch d.Kind {
	case "lognormal", "logitnormal", "uniform", "fixed":
	default:
		return Draw{}, fmt.Errorf("fit: draw %s: unknown distribution %q (want %s)", s, d.Kind, DrawSyntax)
	}
	if len(nums) != want {
		return Draw{}, fmt.Errorf("fit: draw %s: %s takes %d numbers, got %d", s, d.Kind, want, len(nums))
	}
	d.A = nums[0]
	if want == 2 {
		d.B = nums[1]
	}
	inDomain := func(x float64) bool { return p.Domain.Contains(x) || agent.ClosedLearning(p.Name, x) }
	switch {
	case d.Kind == "lognormal" && p.Domain != agent.Positive:
		return Draw{}, fmt.Errorf("fit: draw %s: lognormal is for a positive parameter; %s is in the %s domain (use logitnormal or uniform)", s, p.Name, p.Domain)
	case d.Kind == "logitnormal" && p.Domain != agent.UnitInterval:
		return Draw{}, fmt.Errorf("fit: draw %s: logitnormal is for a parameter in (0, 1); %s is in the %s domain (use lognormal or uniform)", s, p.Name, p.Domain)
	case (d.Kind == "lognormal" || d.Kind == "logitnormal") && d.B < 0:
		return Draw{}, fmt.Errorf("fit: draw %s: SIGMA %v, want >= 0", s, d.B)
	case (d.Kind == "lognormal" || d.Kind == "logitnormal") && !p.Domain.Contains(p.Domain.Inverse(d.A)):
		return Draw{}, fmt.Errorf("fit: draw %s: MU %v puts the median at %v, outside the %s domain of %s", s, d.A, p.Domain.Inverse(d.A), p.Domain, p.Name)
	case d.Kind == "uniform" && !(d.A < d.B):
		return Draw{}, fmt.Errorf("fit: draw %s: LO %v >= HI %v", s, d.A, d.B)
	case d.Kind == "uniform" && !(inDomain(d.A) && inDomain(d.B)):
		return Draw{}, fmt.Errorf("fit: draw %s: the bounds must be in the %s domain of %s", s, p.Domain, p.Name)
	case d.Kind == "fixed" && !inDomain(d.A):
		return Draw{}, fmt.Errorf("fit: draw %s: %v is not in the %s domain of %s", s, d.A, p.Domain, p.Name)
	}
	return d, nil
}

// ParseDraws reads several draws (ParseDraw), at most one per parameter,
// and returns them in the declared order of ps, whatever the order of
// specs: the order DrawParams samples them in.
func ParseDraws(specs []string, ps []agent.Param) ([]Draw, error) {
	byName := map[string]Draw{}
	for _, s := range specs {
		d, err := ParseDraw(s, ps)
		if err != nil {
			return nil, apiError(err)
		}
		if _, dup := byName[d.Param.Name]; dup {
			return nil, fmt.Errorf("fit: draw %s: %s is drawn twice", s, d.Param.Name)
		}
		byName[d.Param.Name] = d
	}
	var out []Draw
	for _, p := range ps {
		if d, ok := byName[p.Name]; ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// ParamRand returns the random stream of subject's parameter draws
// (subject from 0) in a simulation with seed seed: PCG(seed + subject,
// 0x9a4a3e7f), a stream of its own beside the decisions'
// (agent.StepRand) and the world's (agent.WorldRand), so that a subject's
// values do not depend on the other subjects, on the order or parallelism
// in which subjects are simulated, or on how many draws its agent and
// world make.
func ParamRand(seed uint64, subject int) *rand.Rand {
	return rand.New(rand.NewPCG(seed+uint64(subject), 0x9a4a3e7f))
}

// DrawParams returns subject's parameter values (subject from 0) in a
// simulation with seed seed: each of draws sampled in turn, in the order
// given (ParseDraws gives the declared order), from ParamRand(seed,
// subject). The map holds the drawn parameters alone: the agent's others
// keep their values.
func DrawParams(draws []Draw, seed uint64, subject int) map[string]float64 {
	rng := ParamRand(seed, subject)
	v := make(map[string]float64, len(draws))
	for i := range draws {
		v[draws[i].Param.Name] = draws[i].Sample(rng)
	}
	return v
}
