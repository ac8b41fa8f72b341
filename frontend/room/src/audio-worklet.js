// The microphone's capture processor: it turns the AudioContext's float frames into PCM16 mono at the
// context's own rate (Go resamples to the provider's rate) and posts them in batches of about 20 ms, with
// the batch's level (RMS, 0..1) for the room's meter.
class VoiceboxCapture extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const batch = (options && options.processorOptions && options.processorOptions.batch) || 960;
    this.batch = batch;
    this.buf = new Int16Array(batch);
    this.n = 0;
    this.sum = 0;
  }

  process(inputs) {
    const ch = inputs[0] && inputs[0][0];
    if (!ch) return true;
    for (let i = 0; i < ch.length; i++) {
      let v = ch[i];
      if (v > 1) v = 1; else if (v < -1) v = -1;
      this.sum += v * v;
      this.buf[this.n++] = v < 0 ? v * 0x8000 : v * 0x7fff;
      if (this.n === this.buf.length) {
        const level = Math.sqrt(this.sum / this.n);
        const pcm = this.buf;
        this.buf = new Int16Array(this.batch); // the old one is transferred (detached) below
        this.port.postMessage({ pcm: pcm.buffer, level }, [pcm.buffer]);
        this.n = 0;
        this.sum = 0;
      }
    }
    return true;
  }
}

registerProcessor("voicebox-capture", VoiceboxCapture);
