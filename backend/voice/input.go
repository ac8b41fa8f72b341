package voice

import (
	"fmt"

	"github.com/voicebox/voicebox/backend/voice/pcm"
)

// The audio the room and the session exchange.
const (
	// RoomOutputRate is what the room plays: every provider's audio reaches the room at this rate.
	RoomOutputRate = 24000

	// ChunkMillis is how much audio goes upstream in one message.
	ChunkMillis = 40

	// MaxFrameBytes bounds one frame of audio from the room (about 1 s at 96 kHz).
	MaxFrameBytes = 192 << 10
)

// inputPipe turns the room's frames (any supported rate) into upstream chunks at the provider's rate.
type inputPipe struct {
	target int
	rs     *pcm.Resampler
	ch     *pcm.Chunker
}

func newInputPipe(target int) *inputPipe {
	return &inputPipe{target: target, ch: pcm.NewChunker(pcm.ChunkBytes(target, ChunkMillis))}
}

// push converts one frame; it returns the whole chunks now ready.
func (p *inputPipe) push(frame []byte, rate int) ([][]byte, error) {
	if err := pcm.CheckRate(rate); err != nil {
		return nil, err
	}
	if len(frame) > MaxFrameBytes {
		return nil, fmt.Errorf("%w: a frame of %d bytes is over %d", pcm.ErrBadAudio, len(frame), MaxFrameBytes)
	}
	s, err := pcm.Samples(frame)
	if err != nil {
		return nil, err
	}
	if p.rs == nil || p.rs.From() != rate {
		p.rs = pcm.NewResampler(rate, p.target)
	}
	return p.ch.Push(pcm.PCMBytes(p.rs.Process(s))), nil
}

// flush returns the partial chunk left at the end of a spoken turn.
func (p *inputPipe) flush() []byte { return p.ch.Flush() }
