package mutate

// appMutants runs the source mutants (-app). Filled in by source.go.
func (c *Command) appMutants(p any, emit func(Verdict)) error { return nil }
