package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/voice"
)

// AudioPath is the live session's audio WebSocket in `voicebox serve`: binary frames of PCM16 mono both
// ways (up at the rate named by ?rate=, down at voice.RoomOutputRate), text frames for control
// ({"type":"ptt","down":true}) so a turn's end never overtakes its last audio.
const AudioPath = "/api/session/audio"

// SessionRoutes are the HTTP twins of SessionService and SettingsService (see transport.js), and the audio
// WebSocket. They sit behind the shared door, so Host, Origin and content type are already checked; the
// WebSocket additionally requires an Origin (every browser sends one) equal to the room's.
func SessionRoutes(host string, sess *services.SessionService, set *services.SettingsService) func(*http.ServeMux) {
	origin := Origin(host)
	reply := func(w http.ResponseWriter, v any, err error) {
		if err != nil {
			status, body := services.Describe(err)
			writeJSON(w, status, body)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
	const small = 64 << 10
	return func(mux *http.ServeMux) {
		mux.HandleFunc("GET /api/session", func(w http.ResponseWriter, r *http.Request) {
			st, err := sess.Status()
			reply(w, st, err)
		})
		mux.HandleFunc("POST /api/session/start", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Provider string `json:"provider"`
			}
			if readJSON(w, r, small, http.StatusRequestEntityTooLarge, &req) {
				st, err := sess.Start(req.Provider)
				reply(w, st, err)
			}
		})
		mux.HandleFunc("POST /api/session/stop", func(w http.ResponseWriter, r *http.Request) {
			st, err := sess.Stop()
			reply(w, st, err)
		})
		mux.HandleFunc("POST /api/session/text", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Text string `json:"text"`
			}
			if readJSON(w, r, small, http.StatusRequestEntityTooLarge, &req) {
				reply(w, map[string]bool{"ok": true}, sess.SendText(req.Text))
			}
		})
		mux.HandleFunc("POST /api/session/ptt", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Down bool `json:"down"`
			}
			if readJSON(w, r, small, http.StatusRequestEntityTooLarge, &req) {
				st, err := sess.PushToTalk(req.Down)
				reply(w, st, err)
			}
		})
		mux.HandleFunc("POST /api/session/mode", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Mode string `json:"mode"`
			}
			if readJSON(w, r, small, http.StatusRequestEntityTooLarge, &req) {
				st, err := sess.SetMode(req.Mode)
				reply(w, st, err)
			}
		})
		mux.HandleFunc("/api/session/transcript", func(w http.ResponseWriter, r *http.Request) {
			switch r.Method {
			case http.MethodGet:
				lines, err := sess.Transcript()
				reply(w, lines, err)
			case http.MethodDelete:
				reply(w, map[string]bool{"ok": true}, sess.ClearTranscript())
			default:
				w.Header().Set("Allow", "GET, DELETE")
				writeError(w, http.StatusMethodNotAllowed, CodeMethod, r.Method+" is not allowed on /api/session/transcript")
			}
		})
		mux.HandleFunc("GET "+AudioPath, func(w http.ResponseWriter, r *http.Request) {
			audioSocket(w, r, origin, sess.Manager())
		})
		mux.HandleFunc("/api/settings", func(w http.ResponseWriter, r *http.Request) {
			switch r.Method {
			case http.MethodGet:
				v, err := set.Get()
				reply(w, v, err)
			case http.MethodPost:
				var p services.SettingsPatch
				if readJSON(w, r, small, http.StatusRequestEntityTooLarge, &p) {
					v, err := set.Update(p)
					reply(w, v, err)
				}
			default:
				w.Header().Set("Allow", "GET, POST")
				writeError(w, http.StatusMethodNotAllowed, CodeMethod, r.Method+" is not allowed on /api/settings")
			}
		})
	}
}

// audioSocket relays microphone frames up and the model's audio down for one room page.
func audioSocket(w http.ResponseWriter, r *http.Request, origin string, m *voice.Manager) {
	if r.Header.Get("Origin") != origin {
		writeError(w, http.StatusForbidden, CodeForbiddenOrigin, "the audio socket is for the room's own page")
		return
	}
	rate, err := strconv.Atoi(r.URL.Query().Get("rate"))
	if err != nil || voice.CheckRate(rate) != nil {
		writeError(w, http.StatusBadRequest, voice.CodeBadAudio, "give ?rate= the microphone's sample rate (8000–96000)")
		return
	}
	// The door has checked Host and Origin exactly; the library checks the Origin against Host again.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{})
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
		for {
			select {
			case <-ctx.Done():
				return
			case pcm := <-audio:
				if err := wsWrite(ctx, ws, websocket.MessageBinary, pcm); err != nil {
					return
				}
			}
		}
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
