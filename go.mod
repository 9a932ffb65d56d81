module github.com/arbor-ai/arbor

go 1.24.0

require (
	github.com/emicklei/dot v1.10.0
	github.com/google/go-cmp v0.7.0
	gonum.org/v1/gonum v0.17.0
)
