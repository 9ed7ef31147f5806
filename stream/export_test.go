package stream

// SetCrashHook makes Run stop after a batch stage ("decided", "staged",
// "emitted", "published", "committed") when hook returns an error, as a crash would there.
func (p *Pipeline) SetCrashHook(hook func(stage string) error) { p.crash = hook }
