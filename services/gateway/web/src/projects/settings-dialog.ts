import type { MemberSettings, ProjectSettings, ProjectView } from "@agent-orchestrator/shared/wire";
import type { ApiClient, SettingsDocument } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { h } from "../lib/dom.js";
import { openModal } from "../ui/modal-dialog.js";

/** One answer of BMAD's config the dialog offers, with the text that says what it is. */
interface AnswerField {
  key: string;
  label: string;
}

const projectAnswers: AnswerField[] = [
  { key: "project_name", label: "Project name agents use" },
  { key: "document_output_language", label: "Language of documents" },
  { key: "user_skill_level", label: "Skill level (beginner, intermediate, expert)" },
];
const memberAnswers: AnswerField[] = [
  { key: "user_name", label: "Your name" },
  { key: "communication_language", label: "Language agents speak to you in" },
];

/**
 * A project's BMAD settings (docs/settings.md): the answers agents use in this project and the team's customization
 * per skill, as JSON. Every member sees them; only the owner can change them (the API decides, a refusal is said).
 */
export function openProjectSettingsDialog(api: ApiClient, project: ProjectView): void {
  openSettingsDialog({
    title: `Settings of ${project.name}`,
    intro:
      project.role === "owner"
        ? "What every agent in this project is told, over the install's answers. Each member's own settings come after these."
        : "What every agent in this project is told. Only the owner changes them.",
    editable: project.role === "owner",
    fields: projectAnswers,
    customizeLabel: "Team customization per skill (JSON)",
    load: () => api.projectSettings(project.id),
    save: (document) => api.putProjectSettings(project.id, document as ProjectSettings),
  });
}

/** The caller's own BMAD settings: their name and language, and their personal customization in every project. */
export function openMySettingsDialog(api: ApiClient): void {
  openSettingsDialog({
    title: "My settings",
    intro: "How agents address you, in every project. Your customization applies to your chats only.",
    editable: true,
    fields: memberAnswers,
    customizeLabel: "Personal customization per skill (JSON)",
    load: () => api.mySettings(),
    save: (document) => api.putMySettings(document as MemberSettings),
  });
}

interface SettingsDialogOptions {
  title: string;
  intro: string;
  editable: boolean;
  fields: AnswerField[];
  customizeLabel: string;
  load: () => Promise<SettingsDocument<ProjectSettings | MemberSettings>>;
  save: (document: ProjectSettings | MemberSettings) => Promise<SettingsDocument<ProjectSettings | MemberSettings>>;
}

function openSettingsDialog(options: SettingsDialogOptions): void {
  const idOf = (key: string) => `settings-${key}`;
  const inputs = new Map(options.fields.map((field) => [field.key, h("input", { id: idOf(field.key), type: "text", autocomplete: "off", maxlength: 200, disabled: !options.editable })]));
  const customize = h("textarea", {
    id: "settings-customize",
    class: "settings-json",
    rows: 8,
    spellcheck: "false",
    disabled: !options.editable,
    placeholder: '{"bmad-agent-analyst": {"agent": {"principles": ["…"]}}}',
  });
  const status = h("p", { class: "member-status", role: "status" });
  // answers the dialog does not show are kept as they are
  let otherAnswers: Record<string, string> = {};
  const show = ({ settings, defaults }: SettingsDocument<ProjectSettings | MemberSettings>): void => {
    const answers: Record<string, string> = { ...(settings.bmad ?? {}) };
    for (const [key, input] of inputs) {
      input.value = answers[key] ?? "";
      input.placeholder = defaults[key] ?? "the install's answer";
      delete answers[key];
    }
    otherAnswers = answers;
    customize.value = settings.customize && Object.keys(settings.customize).length > 0 ? JSON.stringify(settings.customize, null, 2) : "";
  };
  const save = async (): Promise<void> => {
    let parsedCustomize: unknown = {};
    try {
      parsedCustomize = customize.value.trim() === "" ? {} : JSON.parse(customize.value);
    } catch (error) {
      status.textContent = `The customization is not JSON: ${error instanceof Error ? error.message : String(error)}`;
      return;
    }
    const bmad: Record<string, string> = { ...otherAnswers };
    for (const [key, input] of inputs) if (input.value.trim() !== "") bmad[key] = input.value.trim();
    try {
      show(await options.save({ bmad, customize: parsedCustomize } as ProjectSettings));
      status.textContent = "Saved. New turns use these settings.";
    } catch (error) {
      const failure = toApiError(error);
      status.textContent = `${failure.code}: ${failure.message}`;
    }
  };
  const form = h(
    "form",
    {
      class: "settings-form",
      onsubmit: (event: Event) => {
        event.preventDefault();
        void save();
      },
    },
    ...options.fields.map((field) => h("div", { class: "settings-field" }, h("label", { for: idOf(field.key) }, field.label), inputs.get(field.key) ?? null)),
    h("div", { class: "settings-field" }, h("label", { for: "settings-customize" }, options.customizeLabel), customize),
    options.editable ? h("button", { class: "button button-primary", type: "submit" }, "Save settings") : null,
  );
  openModal(options.title, () => [
    h("p", {}, options.intro),
    form,
    status,
    h("form", { method: "dialog", class: "dialog-actions" }, h("button", { class: "button button-quiet", value: "close" }, "Close")),
  ]);
  options.load().then(show, (error: unknown) => {
    const failure = toApiError(error);
    status.textContent = `${failure.code}: ${failure.message}`;
  });
}
