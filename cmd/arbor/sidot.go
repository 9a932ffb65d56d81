package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/arbor-ai/arbor/si"
)

// siWriteDOT writes the search tree to path (the value of flag --dot),
// down to steps actions (0: the default depth, si.DOTPageNodes), the
// root's action now drawn bold (si.Tree.WriteDOT); a figure over the
// limits (checkFigureSize) is refused before it is built.
func siWriteDOT(ctx context.Context, tr *si.Tree, path string, steps, now int) error {
	opts := &si.TreeDOTOptions{Steps: steps, Note: siTreeNote}
	n, err := tr.DOTNodes(opts, maxDOTText+1)
	if err != nil {
		return err
	}
	remedy := "draw fewer steps with --dot-depth D"
	if figureFormat(path) != "" {
		remedy += ", or write the DOT text with --dot FILE.dot"
	}
	if err := checkFigureSize("--dot", path, figureSize{nodes: n, edges: n - 1}, true, remedy); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := tr.WriteDOT(&b, now, opts); err != nil {
		return fmt.Errorf("--dot %s: %w", path, err)
	}
	return writeFigure(ctx, "--dot", path, b.Bytes())
}

// siTreeNote is the note of a search-tree figure (si.TreeDOTOptions.Note):
// the steps drawn, named as the flag --dot-depth, and the nodes left out.
func siTreeNote(steps, depth, drawn, total int) string {
	if total > si.DOTCountLimit {
		return fmt.Sprintf("%d of %d steps drawn (--dot-depth %d): %d nodes of a tree of more than %d", steps, depth, steps, drawn, si.DOTCountLimit)
	}
	return fmt.Sprintf("%d of %d steps drawn (--dot-depth %d): %d more nodes not drawn", steps, depth, steps, total-drawn)
}
