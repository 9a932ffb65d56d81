package btai_test

import (
	"testing"

	"github.com/arbor-ai/arbor/btai"
)

func paperOptions(t *testing.T) btai.Options { return btai.PresetPaper() }
