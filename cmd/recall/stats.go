package main

import "errors"

type statsCmd struct{}

func (c *statsCmd) Run(g *Globals) error { return errors.New("not implemented yet") }
