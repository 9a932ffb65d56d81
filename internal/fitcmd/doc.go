// Package fitcmd holds what the command line's fit verb (`arbor aci|btai|si
// fit`) writes and reads beyond the subjects' lines, so that the verb's
// driver stays one function over every planner: the group level of
// `--group` (its flags --group, --covariates, --design and --group-cov,
// the design built from the covariates file for the subjects of the data,
// parametric empirical Bayes over the first-level fits with package fit,
// the "peb" object of the group line, the shrunk estimates "theta_eb" of
// the subject lines, and the human table of the effects) and the names of
// the models that `--compare` compares (CompareLabels: each by its model
// file and the settings that differ); and the recover verb's --csv, a row
// per subject, fitting model and free parameter (RecoveryCSV).
package fitcmd
