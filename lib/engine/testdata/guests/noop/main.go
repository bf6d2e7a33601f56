// Noop exits at once: the cost of running it is the cost of starting a node
// (instantiating the module and initialising Go's runtime).
package main

func main() {}
