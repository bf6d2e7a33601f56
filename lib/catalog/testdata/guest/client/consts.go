package main

const prefix = "client: "

const (
	msgAcked        = prefix + "acknowledged write"
	msgTyped string = "typed constant"
)

const (
	first  = "repeated"
	second // implicit repetition: "repeated"
)

const prob = 0.125

const (
	p0 = 0.25 * iota
	p1
)

var notConst = "a variable"
