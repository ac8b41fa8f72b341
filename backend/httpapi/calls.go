package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"

	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// CallPrefix serves every bound method by name: POST /api/call/{Service}.{Method} with the JSON array of
// its arguments, answered with its result, or its error as services.Describe says. It is what Wails does
// for the desktop, over HTTP: the room's transport calls a method the same way through either door, and a
// method written once in Go is reachable through both.
const CallPrefix = "/api/call/"

// MaxRegisterBody is RegistryService.Register's own body bound: over it, 400 {"error":"body-too-large"}
// (docs/sandbox.md, Bounds); every other method has the door's MaxBody and its 413.
const MaxRegisterBody = toolcontract.MaxRegisterBody

// bodyBounds are the methods whose body bound is not the door's.
var bodyBounds = map[string]struct {
	limit  int64
	status int
}{
	"RegistryService.Register": {MaxRegisterBody, http.StatusBadRequest},
}

var errorType = reflect.TypeFor[error]()

// method is one bound method: its function value and argument types.
type method struct {
	fn reflect.Value
	in []reflect.Type
}

// methodTable is every exported method of services by "Struct.Method", as Wails names them in the room
// (window.go.<package>.<Struct>.<Method>). A method must return (T, error), error, T or nothing.
func methodTable(svcs []any) (map[string]method, error) {
	table := map[string]method{}
	for _, svc := range svcs {
		v := reflect.ValueOf(svc)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			return nil, fmt.Errorf("httpapi: %T is not a pointer to a struct", svc)
		}
		for i := 0; i < v.NumMethod(); i++ {
			name := v.Type().Elem().Name() + "." + v.Type().Method(i).Name
			fn := v.Method(i)
			t := fn.Type()
			if t.NumOut() > 2 || (t.NumOut() == 2 && t.Out(1) != errorType) {
				return nil, fmt.Errorf("httpapi: %s must return (T, error), error, T or nothing", name)
			}
			if _, dup := table[name]; dup {
				return nil, fmt.Errorf("httpapi: %s is bound twice", name)
			}
			m := method{fn: fn}
			for j := 0; j < t.NumIn(); j++ {
				m.in = append(m.in, t.In(j))
			}
			table[name] = m
		}
	}
	return table, nil
}

// Methods lists the names methodTable gives svcs, sorted (for the test that every bound method has its
// HTTP twin).
func Methods(svcs []any) ([]string, error) {
	table, err := methodTable(svcs)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// callHandler serves CallPrefix over table.
func callHandler(table map[string]method) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Path[len(CallPrefix):]
		m, ok := table[name]
		if !ok {
			writeError(w, http.StatusNotFound, "not-found", fmt.Sprintf("no method %q", name))
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, CodeMethod, r.Method+" is not allowed on "+r.URL.Path)
			return
		}
		bound := bodyBounds[name]
		if bound.limit == 0 {
			bound.limit, bound.status = MaxBody, http.StatusRequestEntityTooLarge
		}
		var raw []json.RawMessage
		if !readJSON(w, r, bound.limit, bound.status, &raw) {
			return
		}
		args, err := m.decode(name, raw)
		if err != nil {
			reply(w, nil, err)
			return
		}
		v, err := m.call(args)
		reply(w, v, err)
	}
}

// decode turns the JSON argument array into the method's arguments, as Wails does: exactly one JSON
// value per parameter (null is the zero value).
func (m method) decode(name string, raw []json.RawMessage) ([]reflect.Value, error) {
	if len(raw) != len(m.in) {
		return nil, services.BadRequest(fmt.Sprintf("%s takes %d arguments, got %d", name, len(m.in), len(raw)))
	}
	args := make([]reflect.Value, len(raw))
	for i, a := range raw {
		p := reflect.New(m.in[i])
		if err := json.Unmarshal(a, p.Interface()); err != nil {
			return nil, services.BadRequest(fmt.Sprintf("%s: argument %d: %v", name, i+1, err))
		}
		args[i] = p.Elem()
	}
	return args, nil
}

// call runs the method and splits its results into a value and an error (a method with no value answers
// null, as a bound method's promise resolves to null).
func (m method) call(args []reflect.Value) (any, error) {
	out := m.fn.Call(args)
	var v any
	var err error
	for _, o := range out {
		if o.Type() == errorType {
			err, _ = o.Interface().(error)
		} else {
			v = o.Interface()
		}
	}
	return v, err
}

// readJSON decodes a bounded JSON body into v. Over the limit it answers overStatus with body-too-large.
func readJSON(w http.ResponseWriter, r *http.Request, limit int64, overStatus int, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, overStatus, CodeBodyTooLarge, fmt.Sprintf("request body over %d bytes", limit))
			return false
		}
		writeError(w, http.StatusBadRequest, CodeBadJSON, err.Error())
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, http.StatusBadRequest, CodeBadJSON, err.Error())
		return false
	}
	return true
}

// reply answers v, or err as services.Describe says (status and {"error","message",…}).
func reply(w http.ResponseWriter, v any, err error) {
	if err != nil {
		status, body := services.Describe(err)
		writeJSON(w, status, body)
		return
	}
	writeJSON(w, http.StatusOK, v)
}
