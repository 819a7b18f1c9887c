//go:build !poisonbodies

package fetch

const poisonGiven = false

func countPoisoned() {}
