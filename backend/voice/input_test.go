package voice

import (
	"errors"
	"math"
	"testing"

	"github.com/voicebox/voicebox/backend/voice/internal/gemini"
	"github.com/voicebox/voicebox/backend/voice/pcm"
)

func sine(rate, hz, n int, amp float64) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(amp * math.Sin(2*math.Pi*float64(hz)*float64(i)/float64(rate)))
	}
	return s
}

func TestInputPipe(t *testing.T) {
	p := newInputPipe(gemini.InputRate)
	// 100 ms at 48 kHz → 100 ms at 16 kHz = 3200 bytes = two 1280-byte chunks and 640 left.
	frame := pcm.PCMBytes(sine(48000, 300, 4800, 8000))
	chunks, err := p.push(frame, 48000)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range chunks {
		if len(c) != 1280 {
			t.Fatalf("chunk %d bytes", len(c))
		}
		total += len(c)
	}
	total += len(p.flush())
	if d := total - 3200; d < -4 || d > 4 {
		t.Fatalf("100 ms became %d bytes, want about 3200", total)
	}
	if _, err := p.push([]byte{1}, 48000); !errors.Is(err, pcm.ErrBadAudio) {
		t.Fatal("odd frame accepted")
	}
	if _, err := p.push(frame, 4000); !errors.Is(err, pcm.ErrBadAudio) {
		t.Fatal("4 kHz accepted")
	}
	if _, err := p.push(make([]byte, MaxFrameBytes+2), 48000); !errors.Is(err, pcm.ErrBadAudio) {
		t.Fatal("oversized frame accepted")
	}
	// The rate may change between frames (another device): the pipe follows.
	if _, err := p.push(pcm.PCMBytes(sine(16000, 300, 1600, 8000)), 16000); err != nil {
		t.Fatal(err)
	}
}
