// A POST from a benchmark's set-up (registering ships and repos, creating and activating workspaces): JSON
// in when there is a body, the answer read to the end, its status out.
export async function post(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}
