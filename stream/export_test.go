package stream

// SetCrashHook makes Run stop after a stage of a numbered batch ("decided", "staged",
// "emitted", "published", "committed") when hook returns an error, as a crash would there.
func (p *Pipeline) SetCrashHook(hook func(stage string, batch int) error) { p.crash = hook }
