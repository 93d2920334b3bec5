// A request whose reply holds a secret the service shows once: a new API key, a webhook's signing secret.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

/**
 * Sends the request (`send`) and holds its reply (`reply`) for the page to show until the person has saved
 * the secret (`forget`). The reply is not kept in the mutation's state: that is reset once handed over.
 */
export function useSecretReply<Body, Reply>(
  request: (body: Body) => Promise<Reply>,
  onReply: (reply: Reply) => void,
) {
  const [reply, setReply] = useState<Reply>();
  const mutation = useMutation({
    mutationFn: request,
    onSuccess: (received: Reply) => {
      onReply(received);
      setReply(received);
    },
  });
  return {
    mutation,
    reply,
    send: (body: Body) => mutation.mutate(body, { onSuccess: () => mutation.reset() }),
    forget: () => setReply(undefined),
  };
}
