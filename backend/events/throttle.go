package events

import "time"

// Throttle passes notices from in to out, never two within every of each other, and never drops the last:
// a notice that comes too soon is sent when every has passed since the one before. It returns when done is
// closed.
func Throttle(in <-chan struct{}, out chan<- struct{}, every time.Duration, done <-chan struct{}) {
	var last time.Time // zero: the first notice goes out at once
	var timer *time.Timer
	var due <-chan time.Time
	send := func() {
		last = time.Now()
		select {
		case out <- struct{}{}:
		default: // one notice waits already; the receiver reads the newest state
		}
	}
	for {
		select {
		case <-done:
			if timer != nil {
				timer.Stop()
			}
			return
		case <-in:
			if due != nil {
				continue // already scheduled
			}
			if wait := every - time.Since(last); wait > 0 {
				timer = time.NewTimer(wait)
				due = timer.C
				continue
			}
			send()
		case <-due:
			due = nil
			send()
		}
	}
}
