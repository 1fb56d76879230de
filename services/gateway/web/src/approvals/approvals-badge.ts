import type { ApprovalView } from "@agent-orchestrator/shared/wire";
import { byId, h } from "../lib/dom.js";
import { formatRelativeTime } from "../lib/format.js";
import { formatHashRoute } from "../lib/hash-route.js";
import { openModal } from "../ui/modal-dialog.js";
import type { ApprovalApi } from "./approval-api.js";
import { callSubject } from "./call-subject.js";

/**
 * The top bar's count of the tool calls waiting for the caller's decision across their projects
 * (`GET /api/approvals`), hidden when there are none; pressed, it lists them, each a link to its chat. Refreshed
 * when the page gets the focus again and whenever the page sees an approval event or makes a decision.
 */
export class ApprovalsBadge {
  private readonly button = byId<HTMLButtonElement>("approvals-button");
  private readonly count = byId<HTMLElement>("approvals-count");
  private approvals: ApprovalView[] = [];
  private loading: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly api: Pick<ApprovalApi, "pending">,
    /** a project's name, for the list (undefined: shown by its id) */
    private readonly projectName: (projectId: string) => Promise<string | undefined>,
  ) {}

  start(): void {
    this.button.addEventListener("click", () => void this.openList());
    window.addEventListener("focus", () => this.refresh());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.refresh();
    });
    this.refresh();
  }

  /** Asks again; calls while one is under way make one more after it, so the last event is always counted. */
  refresh(): void {
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = this.load().finally(() => {
      this.loading = undefined;
      if (!this.again) return;
      this.again = false;
      this.refresh();
    });
  }

  private async load(): Promise<void> {
    try {
      this.show(await this.api.pending());
    } catch {
      // the badge keeps its last count: a failed refresh is tried again on the next event or focus
    }
  }

  private show(approvals: ApprovalView[]): void {
    this.approvals = approvals;
    const count = approvals.length;
    this.button.hidden = count === 0;
    this.count.textContent = String(count);
    this.button.setAttribute("aria-label", `Tool calls waiting for your approval: ${count}`);
  }

  private async openList(): Promise<void> {
    const names = new Map<string, string>();
    await Promise.all(
      [...new Set(this.approvals.map((approval) => approval.project_id))].map(async (projectId) => {
        names.set(projectId, (await this.projectName(projectId).catch(() => undefined)) ?? projectId);
      }),
    );
    const dialog = openModal("Waiting for your approval", () => [
      this.approvals.length === 0
        ? h("p", {}, "Nothing is waiting for you.")
        : h(
            "ul",
            { class: "approvals-list" },
            ...this.approvals.map((approval) => {
              const subject = callSubject(approval.tool, approval.arguments);
              return h(
                "li",
                { class: "approvals-item" },
                h(
                  "a",
                  { href: formatHashRoute({ view: "session", sessionId: approval.session_id }), onclick: () => dialog.close() },
                  h("strong", { class: "approval-tool" }, approval.tool),
                  subject === undefined ? null : h("code", { class: "approvals-subject" }, subject),
                ),
                h("span", { class: "approvals-meta" }, `${names.get(approval.project_id) ?? approval.project_id} · ${approval.requester}'s chat · ${formatRelativeTime(approval.created_at)}`),
                h("span", { class: "approvals-reason" }, approval.reason),
              );
            }),
          ),
      h("div", { class: "dialog-actions" }, h("button", { type: "button", class: "button button-quiet", onclick: () => dialog.close() }, "Close")),
    ]);
    this.refresh();
  }
}
