import type { ApprovalDecisionBody, ApprovalView } from "@agent-orchestrator/shared/wire";
import { toApiError } from "../api/api-error.js";
import { h } from "../lib/dom.js";
import { formatRelativeTime } from "../lib/format.js";
import { errorCallout } from "../ui/error-callout.js";
import { endText, whoDecides, type ApprovalEnd } from "./approval-words.js";
import { callSubject, commandTools } from "./call-subject.js";
import { changePreview, type ReadCallFile } from "./change-preview.js";
import { argumentsText, parseEditedArguments } from "./edited-arguments.js";

/** A waiting call as an `approval_required` event or a listed approval shows it. */
export type ShownApproval = Pick<ApprovalView, "approval_id" | "tool" | "arguments" | "arguments_truncated" | "reason" | "expires_at">;

export interface ApprovalCardOptions {
  shown: ShownApproval;
  /** the page's first guess until the chat's approvals are listed: not a viewer of the project */
  mayDecide: boolean;
  readFile: ReadCallFile;
  /** sends the decision (WebSocket or REST) and answers how the call ended */
  decide(body: ApprovalDecisionBody): Promise<ApprovalEnd>;
}

/** The longest message to the model a decision may carry (maxDecisionMessageChars). */
const maxMessageChars = 4_000;
let cards = 0;

/**
 * One tool call waiting for a member's decision (docs/approvals.md "On the web page"): the tool, why it waits, what
 * it would do (the command line, or a diff of the file against its current content), its arguments, and Approve /
 * Edit (the arguments as JSON, checked before sending) / Reject (with an optional message). A member who may not
 * decide reads it and who can. Its state line is a live region, and takes the focus once a decision is made.
 */
export class ApprovalCard {
  readonly element: HTMLElement;
  readonly approvalId: string;
  private readonly state: HTMLParagraphElement;
  private readonly actions: HTMLElement;
  private readonly who = h("p", { class: "approval-who" });
  private readonly problem = h("div", { class: "approval-problem" });
  private readonly editForm: HTMLFormElement;
  private readonly rejectForm: HTMLFormElement;
  private readonly editBox: HTMLTextAreaElement;
  private readonly editError: HTMLElement;
  private readonly messageBox: HTMLTextAreaElement;
  private mayDecide: boolean;
  private ended: ApprovalEnd | undefined;

  constructor(private readonly options: ApprovalCardOptions) {
    const { shown } = options;
    this.approvalId = shown.approval_id;
    this.mayDecide = options.mayDecide;
    const id = `approval-${++cards}`;
    this.state = h("p", { class: "approval-state", role: "status", tabindex: "-1" });
    this.actions = h(
      "div",
      { class: "approval-actions", role: "group", "aria-label": `Decide ${shown.tool}` },
      h("button", { type: "button", class: "button button-primary", onclick: () => void this.send({ decision: "approve" }) }, "Approve"),
      h("button", { type: "button", class: "button", disabled: shown.arguments_truncated === true, title: shown.arguments_truncated ? "The arguments are too long to edit here" : undefined, onclick: () => this.openForm("edit") }, "Edit"),
      h("button", { type: "button", class: "button button-danger-quiet", onclick: () => this.openForm("reject") }, "Reject"),
    );

    this.editBox = h("textarea", { id: `${id}-arguments`, class: "approval-json", rows: 10, spellcheck: "false", "aria-describedby": `${id}-arguments-error` });
    this.editError = h("p", { id: `${id}-arguments-error`, class: "field-error", role: "alert" });
    this.editBox.addEventListener("input", () => this.showEditError(""));
    this.editForm = this.form(
      `${id}-edit`,
      h("label", { for: this.editBox.id }, "Arguments (JSON)"),
      this.editBox,
      this.editError,
      h("div", { class: "approval-form-actions" }, h("button", { type: "submit", class: "button button-primary" }, "Approve with these arguments"), this.cancelButton()),
    );
    this.editForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const edited = parseEditedArguments(shown.tool, this.editBox.value);
      if (!edited.ok) return this.showEditError(edited.error);
      void this.send({ decision: "approve", arguments: edited.value });
    });

    this.messageBox = h("textarea", { id: `${id}-message`, rows: 3, maxlength: maxMessageChars });
    this.rejectForm = this.form(
      `${id}-reject`,
      h("label", { for: this.messageBox.id }, "Message to the agent (optional)"),
      this.messageBox,
      h("div", { class: "approval-form-actions" }, h("button", { type: "submit", class: "button button-danger" }, "Reject the call"), this.cancelButton()),
    );
    this.rejectForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const message = this.messageBox.value.trim();
      void this.send({ decision: "reject", ...(message === "" ? {} : { message }) });
    });

    const subject = callSubject(shown.tool, shown.arguments);
    const command = commandTools.has(shown.tool) ? subject : undefined;
    const change = changePreview(shown.tool, shown.arguments, options.readFile);
    const specific = command !== undefined || change !== undefined;
    this.element = h(
      "section",
      { class: "approval-card is-pending", "aria-labelledby": `${id}-title`, "data-approval-id": shown.approval_id },
      h("h3", { id: `${id}-title`, class: "approval-title" }, h("span", { class: "approval-tool" }, shown.tool), " needs approval"),
      this.state,
      h("p", { class: "approval-reason" }, shown.reason),
      command !== undefined ? h("pre", { class: "approval-command", "aria-label": "Command line" }, h("code", {}, command)) : null,
      subject !== undefined && command === undefined ? h("p", { class: "approval-path" }, h("code", {}, subject)) : null,
      change,
      h(
        "details",
        { class: "approval-arguments", open: !specific },
        h("summary", {}, "Arguments"),
        h("pre", { class: "approval-json" }, h("code", {}, argumentsText(shown.arguments))),
        shown.arguments_truncated ? h("p", { class: "muted" }, "Long values are shortened here; the call gets them whole.") : null,
      ),
      this.actions,
      this.who,
      this.editForm,
      this.rejectForm,
      this.problem,
    );
    this.showPending();
  }

  get pending(): boolean {
    return this.ended === undefined;
  }

  /** The chat's listing of the call: who may decide it, or how it ended. */
  update(view: ApprovalView): void {
    if (view.decided) return this.end(view.decided);
    if (!this.pending) return;
    this.mayDecide = view.may_decide;
    this.who.textContent = view.may_decide ? "" : whoDecides(view.requester, view.deciders);
    this.showPending();
  }

  /** The call was decided (here, by another member or another client), expired, or its chat was cancelled. */
  end(end: ApprovalEnd, byYou = false): void {
    if (!this.pending) return;
    this.ended = end;
    this.element.classList.replace("is-pending", `is-${end.outcome}`);
    this.element.removeAttribute("aria-busy");
    for (const part of [this.actions, this.editForm, this.rejectForm, this.who]) part.hidden = true;
    this.state.textContent = endText(end, byYou);
  }

  private showPending(): void {
    if (!this.pending) return;
    const expires = `expires ${formatRelativeTime(this.options.shown.expires_at)}`;
    this.state.textContent = this.mayDecide ? `Waiting for your decision · ${expires}` : `Waiting for a decision · ${expires}`;
    const formOpen = !this.editForm.hidden || !this.rejectForm.hidden;
    this.actions.hidden = !this.mayDecide || formOpen;
    this.who.hidden = this.mayDecide;
  }

  private form(id: string, ...children: HTMLElement[]): HTMLFormElement {
    const form = h("form", { id, class: "approval-form", hidden: true }, ...children);
    // Escape closes the form and leaves the choice open again
    form.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      this.closeForms();
    });
    return form;
  }

  private cancelButton(): HTMLButtonElement {
    return h("button", { type: "button", class: "button button-quiet", onclick: () => this.closeForms() }, "Cancel");
  }

  private openForm(which: "edit" | "reject"): void {
    this.problem.replaceChildren();
    if (which === "edit" && this.editBox.value === "") this.editBox.value = argumentsText(this.options.shown.arguments);
    this.editForm.hidden = which !== "edit";
    this.rejectForm.hidden = which !== "reject";
    this.actions.hidden = true;
    (which === "edit" ? this.editBox : this.messageBox).focus();
  }

  private closeForms(): void {
    this.editForm.hidden = true;
    this.rejectForm.hidden = true;
    this.showEditError("");
    this.showPending();
    this.actions.querySelector("button")?.focus();
  }

  private showEditError(text: string): void {
    this.editError.textContent = text;
    if (text === "") this.editBox.removeAttribute("aria-invalid");
    else {
      this.editBox.setAttribute("aria-invalid", "true");
      this.editBox.focus();
    }
  }

  private async send(body: ApprovalDecisionBody): Promise<void> {
    if (!this.pending) return;
    this.problem.replaceChildren();
    this.element.setAttribute("aria-busy", "true");
    const buttons = [...this.element.querySelectorAll("button")].filter((button) => !button.disabled);
    for (const button of buttons) button.disabled = true;
    try {
      this.end(await this.options.decide(body), true);
    } catch (error) {
      const failure = toApiError(error);
      // decided elsewhere in the meantime: the chat's events bring who did, the gateway's message says it now
      if (failure.code === "APPROVAL_DECIDED") {
        for (const part of [this.actions, this.editForm, this.rejectForm]) part.hidden = true;
        this.state.textContent = "No longer waiting";
      }
      this.problem.replaceChildren(errorCallout(failure));
    } finally {
      this.element.removeAttribute("aria-busy");
      for (const button of buttons) button.disabled = false;
      this.state.focus();
    }
  }
}
