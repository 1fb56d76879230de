import { toApiError } from "../api/api-error.js";
import { pageApi } from "../api/page-api.js";
import { exportChat } from "../chat/chat-export.js";
import { confirmAction } from "../ui/confirm-dialog.js";
import { h } from "../lib/dom.js";
import { askForText } from "../ui/text-dialog.js";
import { showToast } from "../ui/toasts.js";

/** What the list does once an action succeeded. */
export interface ChatActionHooks {
  renamed(sessionId: string, title: string): void;
  deleted(sessionId: string): void;
}

/**
 * A chat's actions in the list: a small disclosure ("⋯") holding Rename, Export as Markdown and Delete. A
 * native `<details>`, so it opens with Enter or Space; Escape or a click elsewhere closes it again.
 */
export function chatActionsMenu(chat: { id: string; title: string }, hooks: ChatActionHooks): HTMLDetailsElement {
  const menu = h("details", { class: "session-actions" });
  const act = (action: () => Promise<void>) => () => {
    menu.open = false;
    void action();
  };
  menu.append(
    h(
      "summary",
      { class: "icon-button session-actions-button", "aria-label": `Actions for “${chat.title}”`, title: "Rename, export or delete" },
      h("span", { "aria-hidden": "true" }, "⋯"),
    ),
    h(
      "div",
      { class: "session-menu", role: "group", "aria-label": `Actions for “${chat.title}”` },
      h("button", { type: "button", class: "session-menu-item", onclick: act(() => renameChat(chat, hooks)) }, "Rename…"),
      h("button", { type: "button", class: "session-menu-item", onclick: act(() => exportChat(chat.id)) }, "Export as Markdown"),
      h("button", { type: "button", class: "session-menu-item session-menu-danger", onclick: act(() => deleteChat(chat, hooks)) }, "Delete…"),
    ),
  );
  menu.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !menu.open) return;
    event.stopPropagation();
    menu.open = false;
    menu.querySelector("summary")?.focus();
  });
  // Tab away closes it; a click does so through the one document listener below (Safari does not focus a
  // clicked button, so a focus change alone would close the menu before the click lands)
  menu.addEventListener("focusout", (event) => {
    if (event.relatedTarget instanceof Node && !menu.contains(event.relatedTarget)) menu.open = false;
  });
  return menu;
}

document.addEventListener("pointerdown", (event) => {
  for (const menu of document.querySelectorAll<HTMLDetailsElement>("details.session-actions[open]")) {
    if (!(event.target instanceof Node && menu.contains(event.target))) menu.open = false;
  }
});

async function renameChat(chat: { id: string; title: string }, hooks: ChatActionHooks): Promise<void> {
  const title = await askForText({ title: "Rename this chat", label: "Title", value: chat.title, confirm: "Rename", maxLength: 200 });
  if (title === undefined || title === chat.title) return;
  try {
    await pageApi.renameSession(chat.id, title);
    hooks.renamed(chat.id, title);
  } catch (error) {
    const failure = toApiError(error);
    showToast(`The chat could not be renamed (${failure.code}): ${failure.message}`, "error");
  }
}

async function deleteChat(chat: { id: string; title: string }, hooks: ChatActionHooks): Promise<void> {
  const question = { title: `Delete “${chat.title}”?`, text: "The chat and its conversation will be deleted for good. The files it wrote into the project stay.", confirm: "Delete chat" };
  if (!(await confirmAction(question))) return;
  try {
    await pageApi.deleteSession(chat.id);
    showToast(`“${chat.title}” was deleted.`);
    hooks.deleted(chat.id);
  } catch (error) {
    const failure = toApiError(error);
    // 409: a chat is not deleted under a running turn, which would go on writing into it
    const text =
      failure.code === "SESSION_BUSY"
        ? `“${chat.title}” is answering right now, so it cannot be deleted. Stop the answer (or wait for it to end), then delete the chat.`
        : `The chat could not be deleted (${failure.code}): ${failure.message}`;
    showToast(text, "error");
  }
}
