// Package fit fits agents to recorded behaviour: for one subject, the
// maximum a posteriori estimate of an agent's free parameters given the
// choices the subject made, the Laplace approximation at that estimate
// (posterior SDs and correlations, the log model evidence), AIC and BIC;
// for many subjects, the same in parallel with results in input order.
//
// The likelihood is that of replay: a fresh agent, built by an
// agent.Factory with the parameters' values, is driven along the
// subject's trials in order (agent.Replay; what it learns in one trial it
// carries to the next), and every recorded choice is scored by the
// probability the agent's choice rule gives it:
//
//	ln P(choices | θ) = Σ_trials Σ_t ln P(u_t | o_0..t, u_0..t-1; θ)
//
// Parameters are fitted on a transformed scale θ where they are
// unconstrained (agent.Domain.Transform: ln for positive parameters such as
// the precisions γ and α and the learning rate η, logit for ω in (0, 1)),
// with independent Gaussian priors on that scale. The default prior
// (DefaultPrior) is SPM's in spm_dcm_mdp: mean 0 on the log scale of a
// scaling of the model's value, that is the agent's default value, and
// variance 1/16.
//
// The optimiser (Settings.Method) is gonum's BFGS with finite-difference
// gradients, or gonum's Nelder-Mead for agents whose likelihood is
// piecewise constant in a free parameter (agent.Param.Stepped: BTAI's
// planning tree changes shape in steps as its preferences or learning
// move). Settings.Restarts starts are tried (the prior means first, then
// draws from the priors, deterministic from Settings.Seed) and the best
// kept. At the optimum the Hessian H of the negative log posterior is
// computed by central finite differences (gonum's diff/fd): when it is
// positive definite, H⁻¹ is the Laplace posterior covariance of θ, its
// delta-method image the covariance on the natural scale, and
//
//	ln P(choices) ≈ ln P(choices | θ*) + ln p(θ*) + (d/2) ln 2π − ½ ln det H
//
// the log model evidence; when it is not, the result says so (Converged
// false, the eigenvalues in Eigenvalues) and reports no SDs or evidence.
// A recorded choice that the agent gives probability 0 makes the
// log-likelihood −Inf: reported in the result, with where it is, not an
// error.
//
// For parameter and model recovery (simulate subjects with known
// parameters, fit them back, compare), Draw describes the distribution of
// a parameter over subjects (ParseDraw, ParseDraws read it from text such
// as "alpha=lognormal:0,0.5") and DrawParams draws a subject's values from
// the subject's own stream, ParamRand(seed, subject), beside the decisions'
// agent.StepRand and the world's agent.WorldRand. Recovery and
// ParamsRecovery measure how well the estimates recover the true values:
// Pearson's r, bias and RMSE on the fitting and the natural scale, the
// coverage of the Laplace 95% intervals and the mean posterior
// correlations; Confusion counts the model that wins each subject by log
// evidence and gives BMS its rows.
//
// For a group, PEB fits a second level over the subjects' Laplace
// posteriors, parametric empirical Bayes after SPM's spm_dcm_peb: the
// free parameters on their fitting scale are a linear model of the
// subjects' covariates, θ_i = X_i β + ε_i with ε_i ~ N(0, Σ). Bayesian
// model reduction removes the first-level prior from each posterior;
// given Σ, the effects β and the subjects' parameters are exact, Σ is the
// maximum of the group log evidence plus its prior, and each effect's
// probability of being non-zero is the reduction of the group posterior
// with that effect at 0. The design matrix comes from a formula over the
// covariates (ParseFormula, "1 + group*age") and a covariates file
// (ReadCovariates) through NewDesign; GroupPosteriors turns first-level
// results into the Gaussians PEB takes. Each subject is first fitted with
// the same fixed priors; the group level then gives every subject its
// empirical-Bayes (shrunk) estimate under the prior it learned.
//
// For a posterior predictive check, ReadParamsTable reads each subject's
// parameters from a table (the output of `fit --csv` as it is written:
// the SD and statistics columns set apart), DrawPosterior draws a
// subject's values from its Laplace posterior, and ChoiceRates summarises
// recorded or simulated behaviour by trial and step and by the outcome
// before each choice; LogLikelihood scores either under given parameters.
package fit
