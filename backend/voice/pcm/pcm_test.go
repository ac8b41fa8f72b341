package pcm

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestRatesAndChunkBytes(t *testing.T) {
	if got := ChunkBytes(24000, 40); got != 1920 {
		t.Fatalf("40 ms at 24 kHz PCM16 = 1920 bytes, got %d", got)
	}
	if got := ChunkBytes(16000, 40); got != 1280 {
		t.Fatalf("40 ms at 16 kHz PCM16 = 1280 bytes, got %d", got)
	}
	for _, r := range []int{7999, 96001, 0, -1} {
		if err := CheckRate(r); !errors.Is(err, ErrBadAudio) {
			t.Errorf("rate %d accepted", r)
		}
	}
	for _, r := range []int{8000, 16000, 44100, 48000, 96000} {
		if err := CheckRate(r); err != nil {
			t.Errorf("rate %d refused: %v", r, err)
		}
	}
}

func TestPCM16RoundTripAndEndianness(t *testing.T) {
	s := []int16{0, 1, -1, 32767, -32768, 0x1234}
	b := PCMBytes(s)
	want := []byte{0, 0, 1, 0, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x80, 0x34, 0x12}
	if !bytes.Equal(b, want) {
		t.Fatalf("little-endian PCM16: got % x want % x", b, want)
	}
	back, err := Samples(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s {
		if back[i] != s[i] {
			t.Fatalf("sample %d: %d != %d", i, back[i], s[i])
		}
	}
	if _, err := Samples([]byte{1, 2, 3}); !errors.Is(err, ErrBadAudio) {
		t.Fatalf("odd byte count accepted: %v", err)
	}
}

func TestBase64(t *testing.T) {
	pcm := PCMBytes([]int16{1, 2, 3, -4, 5})
	enc := EncodeBase64(pcm)
	if enc != "AQACAAMA/P8FAA==" {
		t.Fatalf("standard padded base64 expected, got %q", enc)
	}
	for _, in := range []string{enc, "AQACAAMA/P8FAA", "AQACAAMA_P8FAA"} {
		got, err := DecodeBase64(in)
		if err != nil || !bytes.Equal(got, pcm) {
			t.Fatalf("decode %q: %v % x", in, err, got)
		}
	}
	if _, err := DecodeBase64("!!"); err == nil {
		t.Fatal("garbage decoded")
	}
}

func TestMime(t *testing.T) {
	if PCMMime(16000) != "audio/pcm;rate=16000" {
		t.Fatal(PCMMime(16000))
	}
	cases := map[string]int{"audio/pcm;rate=24000": 24000, "audio/pcm; rate=16000": 16000, "audio/pcm": 24000, "audio/pcm;rate=x": 24000, "audio/pcm;rate=1000000": 24000}
	for in, want := range cases {
		if got := RateFromMime(in, 24000); got != want {
			t.Errorf("%q: %d want %d", in, got, want)
		}
	}
}

func TestChunkerSizes(t *testing.T) {
	c := NewChunker(ChunkBytes(16000, 40))
	if c.Size() != 1280 {
		t.Fatal(c.Size())
	}
	var got [][]byte
	data := make([]byte, 1280*3+100)
	for i := range data {
		data[i] = byte(i)
	}
	// Frames of awkward sizes must come out as whole chunks, in order, nothing lost or duplicated.
	for off := 0; off < len(data); {
		n := 333
		if off+n > len(data) {
			n = len(data) - off
		}
		got = append(got, c.Push(data[off:off+n])...)
		off += n
	}
	if len(got) != 3 {
		t.Fatalf("want 3 chunks, got %d", len(got))
	}
	for _, ch := range got {
		if len(ch) != 1280 {
			t.Fatalf("chunk of %d bytes", len(ch))
		}
	}
	if c.Pending() != 100 {
		t.Fatalf("pending %d", c.Pending())
	}
	rest := c.Flush()
	all := append(bytes.Join(got, nil), rest...)
	if !bytes.Equal(all, data) {
		t.Fatal("chunked stream differs from input")
	}
	if c.Pending() != 0 || c.Flush() != nil {
		t.Fatal("flush did not empty")
	}
	if NewChunker(1281).Size() != 1280 {
		t.Fatal("odd chunk size must round down to whole samples")
	}
}

func sine(rate, hz, n int, amp float64) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(amp * math.Sin(2*math.Pi*float64(hz)*float64(i)/float64(rate)))
	}
	return s
}

func rms(s []int16) float64 {
	var acc float64
	for _, v := range s {
		acc += float64(v) * float64(v)
	}
	return math.Sqrt(acc / float64(len(s)))
}

// zeroCrossings counts sign changes, a cheap frequency estimate.
func zeroCrossings(s []int16) int {
	n := 0
	for i := 1; i < len(s); i++ {
		if (s[i-1] < 0) != (s[i] < 0) {
			n++
		}
	}
	return n
}

func TestResampleLengthsAndPitch(t *testing.T) {
	for _, c := range []struct{ from, to int }{{48000, 16000}, {48000, 24000}, {44100, 16000}, {44100, 24000}, {16000, 24000}, {24000, 24000}, {8000, 16000}} {
		in := sine(c.from, 440, c.from, 12000) // one second of A4
		out := NewResampler(c.from, c.to).Process(in)
		if d := len(out) - c.to; d < -2 || d > 2 {
			t.Errorf("%d→%d: one second gave %d samples, want about %d", c.from, c.to, len(out), c.to)
		}
		// 440 Hz has 880 zero crossings a second whatever the rate.
		if z := zeroCrossings(out); z < 870 || z > 890 {
			t.Errorf("%d→%d: %d zero crossings, pitch moved", c.from, c.to, z)
		}
		if r := rms(out[100:]); r < 12000/math.Sqrt2*0.9 || r > 12000/math.Sqrt2*1.1 {
			t.Errorf("%d→%d: passband level %.0f, want about %.0f", c.from, c.to, r, 12000/math.Sqrt2)
		}
	}
}

func TestResampleAntiAlias(t *testing.T) {
	// A 12 kHz tone at 48 kHz cannot exist at 16 kHz (Nyquist 8 kHz): it must be filtered, not folded
	// back to 4 kHz where it would sound like a whistle over speech.
	in := sine(48000, 12000, 48000, 12000)
	out := NewResampler(48000, 16000).Process(in)
	if r := rms(out[200:]); r > 12000*0.05 {
		t.Fatalf("12 kHz leaked through a 16 kHz resample at rms %.0f", r)
	}
}

func TestResampleStreamingMatchesWhole(t *testing.T) {
	for _, c := range []struct{ from, to int }{{48000, 16000}, {44100, 24000}, {16000, 24000}} {
		in := sine(c.from, 1000, 9000, 9000)
		whole := NewResampler(c.from, c.to).Process(in)
		r := NewResampler(c.from, c.to)
		var parts []int16
		for off, n := 0, 0; off < len(in); off += n {
			n = 128 + off%301 // uneven frames, like an AudioWorklet batching render quanta
			if off+n > len(in) {
				n = len(in) - off
			}
			parts = append(parts, r.Process(in[off:off+n])...)
		}
		if len(parts) != len(whole) {
			t.Fatalf("%d→%d: streamed %d samples, whole %d", c.from, c.to, len(parts), len(whole))
		}
		for i := range whole {
			if d := int(parts[i]) - int(whole[i]); d < -1 || d > 1 {
				t.Fatalf("%d→%d: sample %d differs: %d vs %d", c.from, c.to, i, parts[i], whole[i])
			}
		}
	}
}

func TestResampleClamps(t *testing.T) {
	// Full-scale square waves overshoot through a sinc filter; the result must clamp, never wrap around.
	in := make([]int16, 4800)
	for i := range in {
		if (i/40)%2 == 0 {
			in[i] = math.MaxInt16
		} else {
			in[i] = math.MinInt16
		}
	}
	out := NewResampler(48000, 16000).Process(in)
	for i := 20; i < len(out); i++ {
		// Within each positive half period (the filter delays by 16 input samples) the output must stay
		// positive: a wrapped sample would flip sign.
		at := (3*i - (firTaps-1)/2) % 80
		mid := at > 10 && at < 30
		if mid && out[i] < 0 {
			t.Fatalf("sample %d wrapped to %d", i, out[i])
		}
	}
}

// BenchmarkResample48k is the cost of one 20 ms microphone frame at 48 kHz on its way to OpenAI (24 kHz)
// and to Gemini (16 kHz).
func BenchmarkResample48k(b *testing.B) {
	frame := sine(48000, 440, 960, 8000)
	for _, to := range []int{24000, 16000} {
		b.Run(fmt.Sprintf("to%dk", to/1000), func(b *testing.B) {
			r := NewResampler(48000, to)
			b.SetBytes(int64(len(frame) * 2))
			for b.Loop() {
				r.Process(frame)
			}
		})
	}
}
