import type { SignInStatus } from "@agent-orchestrator/shared/wire";
import { byId } from "../lib/dom.js";

/** Methods that change nothing: the gateway asks no CSRF token for them. */
const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * How this gateway signs people in, as `GET /auth/me` told the page at its start (docs/sign-in.md): with
 * OpenID Connect the page shows "Sign in" to a visitor who is not signed in and who is, with "Sign out";
 * a page signed in by the cookie sends its CSRF token on every state-changing request. Without OpenID
 * Connect nothing here shows, and a 401 asks for a token as before.
 */
export class PageSignIn {
  private status: SignInStatus | undefined;

  /** Asks the gateway once; a failure leaves the page as it was before sign-in existed (a 401 asks for a token). */
  async load(): Promise<void> {
    try {
      const response = await fetch("/auth/me", { headers: { accept: "application/json" } });
      if (response.ok) this.status = (await response.json()) as SignInStatus;
    } catch {
      this.status = undefined;
    }
    this.show();
  }

  /** OpenID Connect is on and nobody is signed in: the page shows only the sign-in. */
  get needsSignIn(): boolean {
    return this.oidc && this.status?.user === null;
  }

  /** Whether a refused request should lead to the provider's sign-in rather than a token prompt. */
  get oidc(): boolean {
    return this.status?.oidc === true;
  }

  /** The headers a request with `method` needs besides its own: the CSRF token, when the cookie signs it in. */
  headersFor(method: string | undefined): Record<string, string> {
    const token = this.status?.csrf_token;
    return token !== undefined && !safeMethods.has((method ?? "GET").toUpperCase()) ? { "x-csrf-token": token } : {};
  }

  /** Shows the sign-in screen (the gateway refused the page: nobody signed in, or the sign-in ended). */
  requireSignIn(): void {
    const link = byId<HTMLAnchorElement>("sign-in-link");
    link.href = `/auth/login?return_to=${encodeURIComponent(`/${location.hash}`)}`;
    const dialog = byId<HTMLDialogElement>("sign-in-dialog");
    // Escape would leave an empty page behind: the only way on is to sign in
    dialog.oncancel = (event) => event.preventDefault();
    if (!dialog.open) dialog.showModal();
  }

  private show(): void {
    const signedIn = this.status?.via === "cookie" ? this.status.user : null;
    const panel = byId<HTMLElement>("signed-in");
    panel.hidden = signedIn === null;
    byId<HTMLElement>("signed-in-user").textContent = signedIn ?? "";
    byId<HTMLButtonElement>("sign-out").onclick = () => void this.signOut();
    if (this.needsSignIn) this.requireSignIn();
  }

  private async signOut(): Promise<void> {
    await fetch("/auth/logout", { method: "POST", headers: this.headersFor("POST") }).catch(() => undefined);
    location.assign("/");
  }
}
