// Evaluated in the guard's isolated world when a microphone permission request comes while the room is the
// top document: true takes one of the room's own getUserMedia calls in flight (forwarder.js) for it.
typeof voiceboxGuardTakeMic === "function" && voiceboxGuardTakeMic()
