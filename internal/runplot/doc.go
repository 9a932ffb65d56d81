// Package runplot draws the figure of an agents' run (`arbor aci|btai|si
// run --plot FILE`): what one episode looked like in detail, and how the
// episodes went over the run.
//
// For each episode drawn in detail (Config.Episode: one episode of the
// first agent, or every episode of it, a row each) the figure has
//
//   - the belief over the states of each factor of more than one state,
//     after each observation, as a heat map on the probability scale
//     (white for 0, dark blue for 1) with its colour bar;
//   - the action distribution of each decision, a heat map with the
//     action taken marked;
//   - the outcome of each modality that states preferences (a C that is
//     not uniform) at each step, its most preferred outcomes filled;
//   - the planning cost of each action taken (Config.CostLabel names it:
//     the lowest G, the average cost of the tree search, ...);
//   - for a maze, the path through the maze to the exit.
//
// Over the episodes (two or more) it has the rate of preferred outcomes
// (the share of the outcomes after each action that are a most preferred
// outcome of their modality) and, for a maze, the steps and the share
// solved: each the mean across the agents, the rate and the steps with
// the band from the minimum to the maximum across them.
//
// Memory stays bounded: a Figure keeps the episodes it draws in detail in
// full, and of every other episode only the numbers of its curves, in at
// most 1,000 points; past 1,000 episodes each point is the mean (and the
// band the extremes) of that many consecutive episodes. A long episode's
// heat maps are drawn as an image of a pixel per cell, and its lines
// without a marker per point, so that the file stays small.
//
// The figure is SVG, PDF or PNG by the ending of its file (Format), a PNG
// at Config.DPI pixels per inch. Draw lays it out three panels across, and
// returns it ready to be written; the command line writes the file.
//
// Recovery draws the figure of a recovery (`arbor aci|btai|si recover
// --plot FILE`) from plain values: for each free parameter the true
// against the estimated value of each subject on the fitting scale, with
// the identity line, and with several models the confusion matrix (the
// subjects each model generated, by the model that won them). It too is
// laid out three panels across and returned ready to be written; with
// each estimate's SD it draws the 90% intervals, and its titles name
// Pearson's r.
//
// Fit draws the figure of a fit (`arbor aci|btai|si fit --plot FILE`):
// each free parameter's estimates with their 90% intervals per subject
// (and the empirical-Bayes estimates of a group level), the group effects
// with their intervals, and a model comparison's expected frequencies and
// (protected) exceedance probabilities as bars named by model.
package runplot
