// The `?` overlay (issue #31): every keyboard shortcut of the GUI, from keyboard/shortcuts.ts.
import { Modal } from './modal.js';
import { SHORTCUTS } from './shortcuts.js';

export function ShortcutsOverlay({ onClose }: { onClose: () => void }) {
  return (
    <Modal title="Keyboard shortcuts" onClose={onClose} className="shortcuts">
      <table className="shortcut-table">
        <thead>
          <tr>
            <th>Keys</th>
            <th>Does</th>
            <th>Where</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((shortcut) => (
            <tr key={`${shortcut.where} ${shortcut.keys.join(' ')}`}>
              <td>
                {shortcut.keys.map((key, index) => (
                  <span key={key}>
                    {index > 0 && ' '}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </td>
              <td>{shortcut.what}</td>
              <td className="muted">{shortcut.where}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        <button type="button" onClick={onClose} data-autofocus>
          Close
        </button>
      </p>
    </Modal>
  );
}
