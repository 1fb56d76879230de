import { byId } from "../lib/dom.js";

/**
 * Asks for the gateway's bearer token in a modal dialog; resolves with what was entered, or undefined
 * when the user cancels. The page calls it when the gateway answers 401.
 */
export function askForToken(reason: string): Promise<string | undefined> {
  const dialog = byId<HTMLDialogElement>("token-dialog");
  const input = byId<HTMLInputElement>("token-input");
  byId<HTMLElement>("token-reason").textContent = `${reason} Ask whoever runs this server for one (it is one of the tokens in AUTH_TOKENS).`;
  input.value = "";
  dialog.returnValue = "";
  dialog.showModal();
  input.focus();
  return new Promise((resolve) => {
    dialog.addEventListener(
      "close",
      () => {
        const token = input.value.trim();
        input.value = "";
        resolve(dialog.returnValue === "save" && token !== "" ? token : undefined);
      },
      { once: true },
    );
  });
}
