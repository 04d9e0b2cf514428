// Answering an agent where its question is shown (inbox entry, workspace page): the text goes to the
// workspace's session, followed by Enter, through the bridge's `POST …/input`. Enter sends, Shift+Enter adds
// a line. On success the box empties and says so; on failure it keeps the text and shows the bridge's
// message. Sending changes nothing else: the inbox entry leaves when the agent reports a new state.
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useAction } from '../hooks/use-action.js';
import { useApi } from '../state/session.js';
import { ErrorMessage } from './error-message.js';

export function Composer({ repo, name, label = 'Answer' }: { repo: string; name: string; label?: string }) {
  const api = useApi();
  const sending = useAction();
  const [text, setText] = useState('');
  const [sent, setSent] = useState(false);
  const id = useId();

  const send = () => {
    if (text.trim() === '' || sending.pending) return;
    setSent(false);
    void sending
      .run(() => api.sendInput(repo, name, text))
      .then((ok) => {
        if (!ok) return;
        setText('');
        setSent(true);
      });
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    send();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  return (
    <form className="composer" aria-label={`${label} ${repo}/${name}`} onSubmit={onSubmit}>
      <label htmlFor={id} className="visually-hidden">
        {label} {repo}/{name}
      </label>
      <textarea
        id={id}
        name="answer"
        rows={2}
        value={text}
        placeholder="Type an answer; Enter sends it to the session, Shift+Enter adds a line"
        onChange={(event) => {
          setText(event.target.value);
          setSent(false);
        }}
        onKeyDown={onKeyDown}
      />
      <button type="submit" disabled={sending.pending || text.trim() === ''} aria-label={`Send to ${repo}/${name}`}>
        {sending.pending ? 'Sending…' : 'Send'}
      </button>
      {sent && (
        <span role="status" className="muted">
          Sent.
        </span>
      )}
      <ErrorMessage error={sending.error} />
    </form>
  );
}
