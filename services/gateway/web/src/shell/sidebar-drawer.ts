import { byId } from "../lib/dom.js";

/**
 * On a narrow screen the session list is a drawer behind the menu button; on a wide one it is always
 * shown and these controls are hidden by the style sheet.
 */
export class SidebarDrawer {
  private readonly app = byId<HTMLElement>("app");
  private readonly button = byId<HTMLButtonElement>("menu-button");
  private readonly backdrop = byId<HTMLElement>("sidebar-backdrop");

  constructor() {
    this.button.addEventListener("click", () => this.set(!this.app.classList.contains("sidebar-open")));
    this.backdrop.addEventListener("click", () => this.dismiss());
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.dismiss();
    });
  }

  /** Closes it after a choice was made in it (the page moves on, and so does the focus). */
  close(): void {
    this.set(false);
  }

  /** Closes it unused (Escape, a tap beside it): the focus goes back to the button that opened it. */
  private dismiss(): void {
    const wasOpen = this.app.classList.contains("sidebar-open");
    this.set(false);
    if (wasOpen) this.button.focus();
  }

  private set(open: boolean): void {
    this.app.classList.toggle("sidebar-open", open);
    this.backdrop.hidden = !open;
    this.button.setAttribute("aria-expanded", String(open));
    if (open) byId<HTMLElement>("sidebar").querySelector<HTMLElement>("summary, a, button")?.focus();
  }
}
