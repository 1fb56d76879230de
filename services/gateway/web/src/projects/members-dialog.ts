import type { MemberRole, ProjectMember, ProjectView } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { h } from "../lib/dom.js";
import { openModal } from "../ui/modal-dialog.js";

const roleNames: Record<ProjectMember["role"], string> = { owner: "owner", editor: "editor: chats and writes", viewer: "viewer: reads" };

/**
 * The project's members and their roles. The owner adds a member by user name as editor or viewer, changes a
 * role and removes a member; everyone else sees the list. The API decides: a refusal is shown in the dialog.
 */
export function openMembersDialog(api: ApiClient, project: ProjectView): void {
  const manage = project.role === "owner";
  const list = h("ul", { class: "member-list", "aria-label": "Members" }, h("li", { class: "muted" }, "Loading…"));
  const status = h("p", { class: "member-status", role: "status" });
  const show = (members: ProjectMember[]): void => {
    list.replaceChildren(...members.map((member) => memberRow(member)));
  };
  /** true when the API did it; a refusal is said in the dialog */
  const run = async (action: () => Promise<ProjectMember[]>, done: string): Promise<boolean> => {
    try {
      show(await action());
      status.textContent = done;
      return true;
    } catch (error) {
      const failure = toApiError(error);
      status.textContent = `${failure.code}: ${failure.message}`;
      return false;
    }
  };
  const memberRow = (member: ProjectMember): HTMLLIElement => {
    if (!manage || member.role === "owner") return h("li", { class: "member-row" }, h("span", { class: "member-name" }, member.user), h("span", { class: "member-role" }, roleNames[member.role]));
    const select = roleSelect(`Role of ${member.user}`, member.role);
    select.addEventListener("change", () => void run(() => api.putMember(project.id, member.user, select.value as MemberRole), `${member.user} is now ${select.value}.`));
    const remove = h("button", { type: "button", class: "button button-quiet button-small", onclick: () => void run(() => api.removeMember(project.id, member.user), `${member.user} removed.`) }, `Remove ${member.user}`);
    return h("li", { class: "member-row" }, h("span", { class: "member-name" }, member.user), select, remove);
  };
  const userInput = h("input", { id: "member-user", type: "text", autocomplete: "off", spellcheck: "false", required: true, maxlength: 128 });
  const newRole = roleSelect("Role of the new member", "editor");
  const addForm = h(
    "form",
    {
      class: "member-add",
      onsubmit: (event: Event) => {
        event.preventDefault();
        const user = userInput.value.trim();
        if (user === "") return;
        void run(() => api.putMember(project.id, user, newRole.value as MemberRole), `${user} added as ${newRole.value}.`).then((added) => {
          if (added) userInput.value = "";
        });
      },
    },
    h("label", { for: "member-user" }, "Add a member by user name"),
    h("div", { class: "member-add-row" }, userInput, newRole, h("button", { class: "button button-primary", type: "submit" }, "Add member")),
  );
  openModal(`Members of ${project.name}`, () => [
    manage ? h("p", {}, "Editors chat and write; viewers read the files and chats.") : h("p", {}, "Only the owner changes who is a member."),
    list,
    manage ? addForm : null,
    status,
    h("form", { method: "dialog", class: "dialog-actions" }, h("button", { class: "button button-quiet", value: "close" }, "Close")),
  ]);
  void run(() => api.listMembers(project.id), "");
}

function roleSelect(label: string, role: string): HTMLSelectElement {
  return h(
    "select",
    { class: "role-select", "aria-label": label },
    h("option", { value: "editor", selected: role === "editor" }, "editor"),
    h("option", { value: "viewer", selected: role === "viewer" }, "viewer"),
  );
}
