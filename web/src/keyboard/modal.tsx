// A modal dialog on the native <dialog> (showModal: the rest of the page inert, Escape closes), named by its
// heading. Focus: into the dialog on open (the element marked data-autofocus, else the first control); on
// close back to what held it before, or, when that is gone or the page changed meanwhile, to the page's
// heading.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { focusPageHeading } from '../lib/focus.js';

export function Modal({
  title,
  onClose,
  children,
  className,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  className?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const path = window.location.pathname;
    element.showModal();
    element.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      if (element.open) element.close();
      if (before?.isConnected && window.location.pathname === path) before.focus();
      else focusPageHeading();
    };
  }, []);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop; from the keyboard, Escape (onCancel)
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      className={`modal ${className ?? ''}`}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself, outside its content) closes it.
        if (event.target === dialog.current) onClose();
      }}
    >
      <div className="modal-body">
        <h2 id={titleId}>{title}</h2>
        {children}
      </div>
    </dialog>
  );
}
