import { readFile } from "node:fs/promises";

/**
 * Attaches the git bundle in `bundleFile` as the project's repository (`PUT /api/projects/:id/repository`, docs/
 * repositories.md), signed in with `token` (none: the local single-user mode), and answers the gateway's response.
 */
export async function attachBundle(url: string, projectId: string, bundleFile: string, token?: string): Promise<Response> {
  return fetch(`${url}/api/projects/${projectId}/repository`, {
    method: "PUT",
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), "content-type": "application/x-git-bundle" },
    body: await readFile(bundleFile),
  });
}
