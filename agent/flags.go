package agent

import (
	"flag"
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/pomdp"
)

// ChoiceFlags are the flags of how an agent chooses and learns that the
// planners whose choice sharpens a distribution over actions share:
// --action-precision α of P(u) = σ(α ln Q(u)), --action-factors (a joint
// choice or one per controllable factor), and the learning rate --eta
// and forgetting --omega of the Dirichlet counts.
type ChoiceFlags struct {
	fs      *flag.FlagSet
	alpha   *float64
	factors *string
	eta     *float64
	omega   *float64
}

// RegisterChoiceFlags registers the choice flags on fs. dist names the
// distribution the choice sharpens ("P_marginal(u)"), itself says what
// α = 1 gives, and factorDist names a factor's marginal ("P_f"), for the
// help; selects says whether the verb has --select (whose sample rule
// draws from P).
func RegisterChoiceFlags(fs *flag.FlagSet, dist, itself, factorDist string, selects bool) *ChoiceFlags {
	use := "what a recorded choice is scored with"
	if selects {
		use = "what --select sample draws from and " + use
	}
	return &ChoiceFlags{
		fs:    fs,
		alpha: fs.Float64("action-precision", 1, "action precision α of P(u) = σ(α ln "+dist+"): "+use+" (1: "+itself+")"),
		factors: fs.String("action-factors", JointActions.String(), "with several controllable factors: joint (P(u) over the joint actions) or independent "+
			"(each factor's control from σ(α ln "+factorDist+") of its marginal, as pymdp samples)"),
		eta:   fs.Float64("eta", 1, "learning rate η of the Dirichlet counts at the end of every trial: c' = ω c + η Δc (finite, >= 0)"),
		omega: fs.Float64("omega", 1, "forgetting ω of the Dirichlet counts at the end of every trial: c' = ω c + η Δc (0 < ω <= 1)"),
	}
}

// Choice is what the choice flags set: the action precision, learning
// rate and forgetting where given (nil: the agent's default, 1), and how
// a model with several controllable factors chooses.
type Choice struct {
	ActionPrecision          *float64
	ActionFactors            ActionFactors
	LearningRate, Forgetting *float64
}

// Choice checks the flags against model m (every number in its range;
// --eta and --omega only for a model with concentrations to learn) and
// returns what they set.
func (f *ChoiceFlags) Choice(m *pomdp.Model) (Choice, error) {
	var c Choice
	switch {
	case math.IsNaN(*f.alpha) || math.IsInf(*f.alpha, 0) || *f.alpha < 0:
		return c, Flagf("action-precision", "%v, want finite >= 0", *f.alpha)
	case math.IsNaN(*f.eta) || math.IsInf(*f.eta, 0) || *f.eta < 0:
		return c, Flagf("eta", "%v, want finite >= 0", *f.eta)
	case !(*f.omega > 0 && *f.omega <= 1):
		return c, Flagf("omega", "%v, want 0 < ω <= 1", *f.omega)
	}
	given := Given(f.fs)
	// --eta 1 and --omega 1 are the defaults, which change nothing: only
	// another value is refused on a model that does not learn.
	if err := CheckLearningFlags(m, map[string]bool{"eta": given["eta"] && *f.eta != 1, "omega": given["omega"] && *f.omega != 1}); err != nil {
		return c, err
	}
	af, err := ParseActionFactors(*f.factors)
	if err != nil {
		return c, Flagf("action-factors", "%v", err)
	}
	c.ActionFactors = af
	if given["action-precision"] {
		c.ActionPrecision = f.alpha
	}
	if given["eta"] {
		c.LearningRate = f.eta
	}
	if given["omega"] {
		c.Forgetting = f.omega
	}
	return c, nil
}

// FlagError is an option given wrongly on the command line.
type FlagError struct {
	Flag string // the flag without dashes, or "" for a rule between flags
	Msg  string
}

func (e *FlagError) Error() string {
	if e.Flag == "" {
		return e.Msg
	}
	return "--" + e.Flag + ": " + e.Msg
}

// Flagf returns a *FlagError for flag name.
func Flagf(name, format string, args ...any) error {
	return &FlagError{Flag: name, Msg: fmt.Sprintf(format, args...)}
}

// CheckLearningFlags refuses --eta and --omega, given on the command line
// (given holds the flags set), for a model without concentrations a, b
// or d, which has nothing for them to act on.
func CheckLearningFlags(m *pomdp.Model, given map[string]bool) error {
	if la, lb, ld := m.Learnable(); la || lb || ld {
		return nil
	}
	for _, name := range []string{"eta", "omega"} {
		if given[name] {
			return Flagf(name, "the model has no concentrations a, b or d to learn (--eta and --omega apply to a model that learns)")
		}
	}
	return nil
}

// Duration writes s seconds for a refusal's estimate: "0.012 s", "42 s",
// "13 minutes", "1.9 hours" or "3.1e+05 days".
func Duration(s float64) string {
	switch {
	case s < 10:
		return fmt.Sprintf("%.2g s", s)
	case s < 120:
		return fmt.Sprintf("%.0f s", s)
	case s < 2*3600:
		return fmt.Sprintf("%.0f minutes", s/60)
	case s < 3*86400:
		return fmt.Sprintf("%.2g hours", s/3600)
	}
	return fmt.Sprintf("%.2g days", s/86400)
}

// Given returns the flags of fs set on the command line.
func Given(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}
