import { asAnswer, getOwn, type SignInVia } from "@agent-orchestrator/shared/wire";

/** OpenID Connect's standard claims that name a person (Core §5.1), kept with a sign-in for `user_name`'s default. */
export const displayNameClaims = ["name", "given_name", "family_name", "preferred_username"] as const;

/**
 * The name a provider's sign-in gives its user (docs/settings.md "A member's own settings"): `name`, else
 * `given_name` and `family_name`, else `preferred_username`, each made an answer (control and bidi format
 * characters dropped, at most 200 characters: it reaches the model as data, docs/security.md "Settings").
 * Undefined for an AUTH_TOKENS sign-in and for one whose provider gave none of these claims.
 */
export function displayNameOf(signIn: SignInVia | undefined): string | undefined {
  if (signIn?.via !== "oidc") return undefined;
  const claim = (name: (typeof displayNameClaims)[number]): string => {
    const value = getOwn(signIn.claims, name);
    return typeof value === "string" ? value : "";
  };
  return asAnswer(claim("name")) ?? asAnswer(`${claim("given_name")} ${claim("family_name")}`) ?? asAnswer(claim("preferred_username"));
}
