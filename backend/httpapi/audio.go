package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/voice"
	"github.com/voicebox/voicebox/backend/voice/pcm"
)

// AudioPath is the live session's audio WebSocket in `voicebox serve`: binary frames of PCM16 mono both
// ways (up at the rate named by ?rate=, down at voice.RoomOutputRate), text frames for control
// ({"type":"ptt","down":true}) so a turn's end never overtakes its last audio.
const AudioPath = "/api/session/audio"

// audioSocket relays microphone frames up and the model's audio down for one room page.
func audioSocket(w http.ResponseWriter, r *http.Request, m *voice.Manager) {
	// The door has checked the Origin when there is one; a browser's WebSocket always sends it.
	if r.Header.Get("Origin") == "" {
		writeError(w, http.StatusForbidden, CodeForbiddenOrigin, "the audio socket is for the room's own page")
		return
	}
	rate, err := strconv.Atoi(r.URL.Query().Get("rate"))
	if err != nil || pcm.CheckRate(rate) != nil {
		writeError(w, http.StatusBadRequest, voice.CodeBadAudio, "give ?rate= the microphone's sample rate (8000–96000)")
		return
	}
	// The door has checked Host and Origin exactly; the library checks the Origin against Host again.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{RoomProtocol}})
	if err != nil {
		return
	}
	ws.SetReadLimit(voice.MaxFrameBytes + 1024)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer ws.CloseNow()

	audio, unsubscribe := m.SubscribeAudio()
	defer unsubscribe()
	hello, _ := json.Marshal(map[string]any{"type": "format", "outputRate": voice.RoomOutputRate, "inputRate": rate})
	if err := wsWrite(ctx, ws, websocket.MessageText, hello); err != nil {
		return
	}
	go func() {
		defer cancel()
		events.Follow(ctx, audio, func(pcm []byte) bool { return wsWrite(ctx, ws, websocket.MessageBinary, pcm) == nil })
	}()
	for {
		typ, b, err := ws.Read(ctx)
		if err != nil {
			return
		}
		if typ == websocket.MessageBinary {
			if err := m.SendAudio(b, rate); err != nil {
				var e *voice.Error
				if errors.As(err, &e) && e.Code == voice.CodeBadAudio {
					_ = ws.Close(websocket.StatusUnsupportedData, e.Message)
					return
				}
				// No session (yet, or any more): frames are dropped until one runs.
			}
			continue
		}
		var ctl struct {
			Type string `json:"type"`
			Down bool   `json:"down"`
		}
		if json.Unmarshal(b, &ctl) == nil && ctl.Type == "ptt" {
			_ = m.PushToTalk(ctl.Down)
		}
	}
}

func wsWrite(ctx context.Context, ws *websocket.Conn, typ websocket.MessageType, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return ws.Write(ctx, typ, b)
}
