// A destructive action behind a confirmation step: the first click asks (naming what goes), the second
// does it, Cancel or Escape backs out. Accessible names carry the target ("Remove ship alpha", "Yes, remove
// ship alpha"), so each control is unique on a page with one per row (issue #31). Focus: asking moves it to
// Cancel (the safe answer); backing out returns it to the button; after the action it returns to the
// button when that is still there (a failure), else to the page's heading (the row is gone).
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { focusPageHeading } from '../lib/focus.js';

export function ConfirmButton({
  label,
  target,
  question,
  onConfirm,
  disabled,
}: {
  /** The visible verb: "Remove", "Delete". */
  label: string;
  /** What it acts on, for the accessible names: "ship alpha". */
  target: string;
  question: ReactNode;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  /** Where focus goes on the next render: into the question, or back to the button. */
  const focusNext = useRef<'cancel' | 'trigger' | null>(null);
  /** Set once confirmed: if this then unmounts (its row removed), focus must not fall to <body>. */
  const confirmed = useRef(false);
  const verb = label.toLowerCase();

  // biome-ignore lint/correctness/useExhaustiveDependencies(asking): trigger: focus moves after asking changes
  useEffect(() => {
    if (focusNext.current === 'cancel') cancel.current?.focus();
    if (focusNext.current === 'trigger') trigger.current?.focus();
    focusNext.current = null;
  }, [asking]);
  useEffect(
    () => () => {
      if (confirmed.current && (document.activeElement === null || document.activeElement === document.body))
        focusPageHeading();
    },
    [],
  );

  const back = () => {
    focusNext.current = 'trigger';
    setAsking(false);
  };
  if (!asking) {
    return (
      <button
        ref={trigger}
        type="button"
        className="danger"
        disabled={disabled}
        aria-label={`${label} ${target}`}
        onClick={() => {
          focusNext.current = 'cancel';
          setAsking(true);
        }}
      >
        {label}
      </button>
    );
  }
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      back();
    }
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: an inline group in a row; a fieldset is a bordered block
    <span className="confirm" role="group" aria-label={`confirm: ${verb} ${target}`} onKeyDown={onKeyDown}>
      <span className="question">{question}</span>
      <button
        type="button"
        className="danger"
        aria-label={`Yes, ${verb} ${target}`}
        onClick={() => {
          confirmed.current = true;
          back();
          onConfirm();
        }}
      >
        Yes, {verb}
      </button>
      <button ref={cancel} type="button" aria-label={`Cancel: keep ${target}`} onClick={back}>
        Cancel
      </button>
    </span>
  );
}
