package cmdspec

// AtLeast is the check of a whole number that must be at least n: "-j
// must be at least 1".
func AtLeast[T int | int64](n T) func(T) error {
	return func(v T) error {
		if v < n {
			return Errorf("must be at least %d", n)
		}
		return nil
	}
}

// NotNegative is the check of a whole number that must not be below 0.
func NotNegative[T int | int64](v T) error {
	if v < 0 {
		return Errorf("must not be negative")
	}
	return nil
}
