package fit

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/arbor-ai/arbor/agent"
)

// Prior is a Gaussian prior N(Mean, SD²) of a parameter on its transformed
// scale θ (agent.Domain.Transform: ln x for a positive parameter, logit x
// for one in (0, 1)).
type Prior struct {
	Mean, SD float64
}

// DefaultPriorSD is the prior SD on the transformed scale: 1/4, the prior
// variance 1/16 of SPM's spm_dcm_mdp for log-scaled parameters.
const DefaultPriorSD = 0.25

// Bounds of a prior (Prior.Check).
const (
	// MaxPriorMean bounds |Mean|: the box |θ| <= 25 the optimiser searches
	// (e^25 ≈ 7e10); a mean outside it is a start the fit cannot take, and
	// beyond about 709 exp θ overflows and the agent refuses the value.
	MaxPriorMean = maxTheta
	// MinPriorSD is the smallest SD: a prior that narrow fixes the
	// parameter in all but name (leave it out of Free and give its value
	// to the agent). BFGS's line search already stops at it (reporting the
	// fit not converged at the prior mean), and below about 1e-154 the
	// prior's curvature 1/SD² overflows and no start is feasible.
	MinPriorSD = 1e-3
)

// Check returns an error unless p is a prior a fit takes: Mean finite and
// within ±MaxPriorMean, SD finite and at least MinPriorSD. The error names
// the field ("SD 1e-300: want ...").
func (p Prior) Check() error {
	switch {
	case !(math.Abs(p.Mean) <= MaxPriorMean):
		return fmt.Errorf("fit: mean %v: want a finite number within ±%d on the fitting scale (the values the fit searches)", p.Mean, MaxPriorMean)
	case !(p.SD >= MinPriorSD) || math.IsInf(p.SD, 0):
		return fmt.Errorf("fit: SD %v: want a finite number >= %v (narrower fixes the parameter: leave it out of the free ones)", p.SD, MinPriorSD)
	}
	return nil
}

// DefaultPrior returns the default prior of p: N(θ_0, 1/16) with θ_0 the
// transformed default (ln of the model's or options' value: SPM's prior
// mean 0 of a log-scaling of the model's value), or θ_0 = 0 where the
// default lies on the domain's edge (ω = 1: the logit's middle, 1/2, which
// is SPM's prior mean for η and ω).
func DefaultPrior(p agent.Param) Prior {
	mean := p.Domain.Transform(p.Default)
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		mean = 0
	}
	return Prior{Mean: mean, SD: DefaultPriorSD}
}

// Method is the optimiser of the maximum a posteriori estimate.
type Method int

const (
	// Auto is BFGS, unless a free parameter is stepped
	// (agent.Param.Stepped), then NelderMead.
	Auto Method = iota
	// BFGS is gonum's quasi-Newton BFGS with gradients by forward
	// differences, followed by the Laplace approximation.
	BFGS
	// NelderMead is gonum's derivative-free simplex method. The Laplace
	// approximation follows only when no free parameter is stepped.
	NelderMead
)

var methodNames = []string{"auto", "bfgs", "nelder-mead"}

// String returns "auto", "bfgs" or "nelder-mead".
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// MarshalText implements encoding.TextMarshaler.
func (m Method) MarshalText() ([]byte, error) {
	if m < 0 || int(m) >= len(methodNames) {
		return nil, fmt.Errorf("fit: Method(%d) invalid", int(m))
	}
	return []byte(methodNames[m]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: auto, bfgs or
// nelder-mead.
func (m *Method) UnmarshalText(b []byte) error {
	for i, n := range methodNames {
		if string(b) == n {
			*m = Method(i)
			return nil
		}
	}
	return fmt.Errorf("fit: %q, want %s", b, strings.Join(methodNames, ", "))
}

// Defaults of Settings, and the bound of Restarts (as the command line's
// --restarts of fit).
const (
	DefaultRestarts       = 3
	DefaultMaxEvaluations = 2000
	MaxRestarts           = 1000
)

// Settings configures a fit. A nil *Settings is an error where free
// parameters are needed (there is no default for Free); a zero field means
// its default.
type Settings struct {
	// Free names the parameters to fit (agent.ParamGamma, ...), in the
	// order of the output; the agent must declare each
	// (agent.Factory.Params). The others stay at their defaults (the
	// factory's options).
	Free []string
	// Priors holds the prior of a free parameter on its transformed scale
	// by name; a free parameter without one has DefaultPrior.
	Priors map[string]Prior
	// Restarts is the number of optimisations per subject, the best of
	// which is kept: the first from the prior means, the others from draws
	// of the priors with twice their SD (PCG(Seed, subject index)).
	// Default 3, at most MaxRestarts.
	Restarts int
	// Seed seeds the restarts' draws and the random streams of the
	// agents' decisions (agent.StepRand(Seed, subject index, trial,
	// step), as replay and run draw them).
	Seed uint64
	// Method is the optimiser (default Auto).
	Method Method
	// MaxEvaluations bounds the likelihood evaluations of one
	// optimisation (default 2000); reaching it is reported as not
	// converged.
	MaxEvaluations int
	// Jobs is the number of subjects fitted in parallel by Subjects
	// (default 1), and the number of a subject's restarts that Subject
	// runs at once (Subjects gives each subject the jobs its share of
	// them leaves: all of them for one subject, one when there are as
	// many subjects as jobs); the results do not depend on it.
	Jobs int
}

// PerSubject returns a copy of s for each of n subjects fitted at once on
// s.Jobs goroutines: the jobs beyond the subjects go to each subject's
// restarts (agent.SpareJobs), so that the goroutines stay at about
// s.Jobs. The results do not depend on it.
func (s *Settings) PerSubject(n int) *Settings {
	r := s.resolved()
	r.Jobs = agent.SpareJobs(r.Jobs, n)
	return &r
}

// resolved returns a copy with the defaults filled in.
func (s *Settings) resolved() Settings {
	var r Settings
	if s != nil {
		r = *s
	}
	if r.Restarts == 0 {
		r.Restarts = DefaultRestarts
	}
	if r.MaxEvaluations == 0 {
		r.MaxEvaluations = DefaultMaxEvaluations
	}
	if r.Jobs == 0 {
		r.Jobs = 1
	}
	return r
}

// Validate checks the settings against the parameters ps an agent
// declares: errors name the field and the parameter.
func (s *Settings) Validate(ps []agent.Param) error {
	r := s.resolved()
	_, _, err := r.resolveParams(ps)
	return apiError(err)
}

// resolveParams returns the free parameters and their priors, or an error
// naming the field at fault.
func (s *Settings) resolveParams(ps []agent.Param) ([]agent.Param, []Prior, error) {
	switch {
	case len(s.Free) == 0:
		return nil, nil, errors.New("fit: Settings.Free: no free parameter")
	case s.Restarts < 1 || s.Restarts > MaxRestarts:
		return nil, nil, fmt.Errorf("fit: Settings.Restarts: %d, want 1..%d", s.Restarts, MaxRestarts)
	case s.MaxEvaluations < 1:
		return nil, nil, fmt.Errorf("fit: Settings.MaxEvaluations: %d, want >= 1", s.MaxEvaluations)
	case s.Jobs < 1:
		return nil, nil, fmt.Errorf("fit: Settings.Jobs: %d, want >= 1", s.Jobs)
	case s.Method < Auto || s.Method > NelderMead:
		return nil, nil, fmt.Errorf("fit: Settings.Method: %d, want Auto, BFGS or NelderMead", int(s.Method))
	}
	free := make([]agent.Param, len(s.Free))
	priors := make([]Prior, len(s.Free))
	for i, name := range s.Free {
		if j := slices.Index(s.Free, name); j < i {
			return nil, nil, fmt.Errorf("fit: Settings.Free: %s given twice", name)
		}
		p, err := agent.FindParam(ps, name)
		if err != nil {
			return nil, nil, fmt.Errorf("fit: Settings.Free: %w", err)
		}
		free[i] = p
		priors[i] = DefaultPrior(p)
		if pr, ok := s.Priors[name]; ok {
			if err := pr.Check(); err != nil {
				return nil, nil, inContext("Settings.Priors["+name+"]", err)
			}
			priors[i] = pr
		}
	}
	names := make([]string, 0, len(s.Priors))
	for name := range s.Priors {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !slices.Contains(s.Free, name) {
			return nil, nil, fmt.Errorf("fit: Settings.Priors[%s]: %s is not a free parameter", name, name)
		}
	}
	return free, priors, nil
}

// scaleName names the transformed scale of a domain.
func scaleName(d agent.Domain) string {
	switch d {
	case agent.Positive:
		return "log"
	case agent.UnitInterval:
		return "logit"
	}
	return "natural"
}

// ScaleName returns the name of the transformed scale of d: "log",
// "logit" or "natural".
func ScaleName(d agent.Domain) string { return scaleName(d) }
