import { byId } from "../lib/dom.js";

/**
 * The message box: Enter sends, Shift+Enter adds a line, and while a turn runs the Send button becomes
 * Stop. The box stays editable during a turn so the next message can be written meanwhile.
 */
export class Composer {
  private readonly form = byId<HTMLFormElement>("composer");
  private readonly textarea = byId<HTMLTextAreaElement>("message-input");
  private readonly sendButton = byId<HTMLButtonElement>("send-button");
  private readonly stopButton = byId<HTMLButtonElement>("stop-button");
  private busy = false;

  constructor(handlers: { send(text: string): void; stop(): void }) {
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this.textarea.value.trim();
      if (this.busy || text === "") return;
      this.setText("");
      handlers.send(text);
    });
    this.textarea.addEventListener("keydown", (event) => {
      // isComposing: Enter that confirms an IME composition (Japanese, Chinese…) must not send
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.form.requestSubmit();
      }
    });
    this.textarea.addEventListener("input", () => this.fitHeight());
    this.stopButton.addEventListener("click", () => handlers.stop());
  }

  setBusy(busy: boolean): void {
    this.busy = busy;
    this.sendButton.hidden = busy;
    this.stopButton.hidden = !busy;
    this.stopButton.disabled = false;
    this.form.classList.toggle("is-busy", busy);
  }

  /** A chat that cannot go on (its session could not be opened) takes no messages. */
  setDisabled(disabled: boolean): void {
    this.textarea.disabled = disabled;
    this.sendButton.disabled = disabled;
  }

  /** A viewer's chat has no message box at all: the read-only note stands in its place. */
  setHidden(hidden: boolean): void {
    this.form.hidden = hidden;
  }

  /** Stop was pressed: it stays visible but inactive until the turn has ended. */
  markStopping(): void {
    this.stopButton.disabled = true;
  }

  setPlaceholder(text: string): void {
    this.textarea.placeholder = text;
  }

  setText(text: string): void {
    this.textarea.value = text;
    this.fitHeight();
  }

  focus(): void {
    this.textarea.focus();
  }

  private fitHeight(): void {
    this.textarea.style.height = "auto";
    this.textarea.style.height = `${this.textarea.scrollHeight}px`;
  }
}
