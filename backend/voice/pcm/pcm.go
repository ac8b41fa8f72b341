// Package pcm is 16-bit mono PCM as the voice session moves it between the room and the providers: the
// rates a room may send, decoding and encoding samples and base64, Gemini's mime types, cutting a stream
// into chunks of a fixed length, and resampling between rates.
package pcm

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MinRate and MaxRate bound what a room may send (AudioContext rates are 8–96 kHz).
const (
	MinRate = 8000
	MaxRate = 96000
)

// ErrBadAudio refuses audio that is not PCM16 mono at a supported rate.
var ErrBadAudio = errors.New("bad-audio")

// CheckRate refuses a rate outside MinRate..MaxRate.
func CheckRate(rate int) error {
	if rate < MinRate || rate > MaxRate {
		return fmt.Errorf("%w: sample rate %d is outside %d..%d Hz", ErrBadAudio, rate, MinRate, MaxRate)
	}
	return nil
}

// ChunkBytes is the byte size of ms milliseconds of PCM16 mono at rate.
func ChunkBytes(rate, ms int) int { return rate * ms / 1000 * 2 }

// Samples decodes little-endian PCM16. An odd number of bytes is refused: a frame never splits a sample.
func Samples(b []byte) ([]int16, error) {
	if len(b)%2 != 0 {
		return nil, fmt.Errorf("%w: %d bytes is not a whole number of 16-bit samples", ErrBadAudio, len(b))
	}
	out := make([]int16, len(b)/2)
	for i := range out {
		out[i] = int16(uint16(b[2*i]) | uint16(b[2*i+1])<<8)
	}
	return out, nil
}

// PCMBytes encodes samples as little-endian PCM16.
func PCMBytes(s []int16) []byte {
	out := make([]byte, 2*len(s))
	for i, v := range s {
		out[2*i] = byte(uint16(v))
		out[2*i+1] = byte(uint16(v) >> 8)
	}
	return out
}

// EncodeBase64 and DecodeBase64 are the providers' audio encoding (standard alphabet, padded).
func EncodeBase64(pcm []byte) string { return base64.StdEncoding.EncodeToString(pcm) }

// DecodeBase64 accepts padded or unpadded standard base64, and the URL alphabet some proxies use.
func DecodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// PCMMime is the Gemini mime type of PCM16 at rate, e.g. "audio/pcm;rate=16000".
func PCMMime(rate int) string { return "audio/pcm;rate=" + strconv.Itoa(rate) }

// RateFromMime reads the rate of an "audio/pcm;rate=N" mime type; fallback when it names none.
func RateFromMime(mime string, fallback int) int {
	for _, part := range strings.Split(mime, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "rate") {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= MinRate && n <= MaxRate {
				return n
			}
		}
	}
	return fallback
}

// Chunker cuts a stream of bytes into chunks of exactly size bytes (size is even, so samples stay whole).
type Chunker struct {
	size int
	buf  []byte
}

// NewChunker returns a chunker of size bytes (rounded down to whole samples, at least one sample).
func NewChunker(size int) *Chunker {
	size &^= 1
	if size < 2 {
		size = 2
	}
	return &Chunker{size: size}
}

// Size is the chunk size in bytes.
func (c *Chunker) Size() int { return c.size }

// Push adds bytes and returns every whole chunk now available; the rest waits for more.
func (c *Chunker) Push(p []byte) [][]byte {
	c.buf = append(c.buf, p...)
	var out [][]byte
	for len(c.buf) >= c.size {
		chunk := make([]byte, c.size)
		copy(chunk, c.buf[:c.size])
		out = append(out, chunk)
		c.buf = c.buf[c.size:]
	}
	if len(c.buf) == 0 {
		c.buf = nil
	}
	return out
}

// Flush returns what is left (possibly nothing) and empties the chunker.
func (c *Chunker) Flush() []byte {
	out := c.buf
	c.buf = nil
	return out
}

// Pending is the number of bytes waiting for a whole chunk.
func (c *Chunker) Pending() int { return len(c.buf) }

// Resampler converts a stream of PCM16 mono from one rate to another, keeping state between calls so a
// stream cut into frames resamples exactly as the whole would. Downsampling low-passes first (a windowed
// sinc at 90% of the new Nyquist frequency) so frequencies the new rate cannot hold do not fold back
// into speech; then it interpolates linearly.
type Resampler struct {
	from, to int
	step     float64   // input samples per output sample
	taps     []float64 // low-pass FIR, nil when not downsampling
	hist     []float64 // the last len(taps)-1 input samples, for the FIR
	tail     []float64 // filtered samples not yet consumed by interpolation
	pos      float64   // read position into tail
}

// firTaps is the low-pass length: odd, so the filter has a whole-sample delay.
const firTaps = 33

// NewResampler converts from → to (both checked with CheckRate by the caller).
func NewResampler(from, to int) *Resampler {
	r := &Resampler{from: from, to: to, step: float64(from) / float64(to)}
	if to < from {
		r.taps = lowPass(firTaps, 0.5*float64(to)/float64(from)*0.9)
		r.hist = make([]float64, firTaps-1)
	}
	return r
}

// From and To are the rates.
func (r *Resampler) From() int { return r.from }

// To is the output rate.
func (r *Resampler) To() int { return r.to }

// lowPass designs a Blackman-windowed sinc with cutoff fc (cycles per sample, < 0.5), unity gain at DC.
func lowPass(n int, fc float64) []float64 {
	h := make([]float64, n)
	m := float64(n - 1)
	var sum float64
	for i := range h {
		x := float64(i) - m/2
		var s float64
		if x == 0 {
			s = 2 * fc
		} else {
			s = math.Sin(2*math.Pi*fc*x) / (math.Pi * x)
		}
		w := 0.42 - 0.5*math.Cos(2*math.Pi*float64(i)/m) + 0.08*math.Cos(4*math.Pi*float64(i)/m)
		h[i] = s * w
		sum += h[i]
	}
	for i := range h {
		h[i] /= sum
	}
	return h
}

// Process resamples the next part of the stream.
func (r *Resampler) Process(in []int16) []int16 {
	if r.from == r.to {
		return append([]int16(nil), in...)
	}
	x := make([]float64, len(in))
	for i, v := range in {
		x[i] = float64(v)
	}
	if r.taps != nil {
		x = r.filter(x)
	}
	buf := append(r.tail, x...)
	var out []int16
	for r.pos+1 < float64(len(buf)) {
		i := int(r.pos)
		frac := r.pos - float64(i)
		v := buf[i]*(1-frac) + buf[i+1]*frac
		out = append(out, clamp16(v))
		r.pos += r.step
	}
	drop := int(r.pos)
	if drop > len(buf) {
		drop = len(buf)
	}
	r.tail = append([]float64(nil), buf[drop:]...)
	r.pos -= float64(drop)
	return out
}

func (r *Resampler) filter(x []float64) []float64 {
	n := len(r.taps)
	ext := append(r.hist, x...)
	out := make([]float64, len(x))
	for i := range x {
		var acc float64
		window := ext[i : i+n]
		for k, h := range r.taps {
			acc += h * window[n-1-k]
		}
		out[i] = acc
	}
	r.hist = append([]float64(nil), ext[len(ext)-(n-1):]...)
	return out
}

func clamp16(v float64) int16 {
	v = math.Round(v)
	switch {
	case v > math.MaxInt16:
		return math.MaxInt16
	case v < math.MinInt16:
		return math.MinInt16
	}
	return int16(v)
}
