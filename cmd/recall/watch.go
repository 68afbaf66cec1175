package main

import "errors"

type watchCmd struct{}

func (c *watchCmd) Run(g *Globals) error { return errors.New("not implemented yet") }
