// A 404 for a bucket this token cannot see, in the console's words: the server answers it whether
// the bucket exists or not (docs/security.md, "Refusals, and why 404").
import { auth } from "../../state/auth";
import { concealmentText } from "../../api/cause";

/** The explanation when `bucket` is outside the token's buckets, else null. */
export function concealment(bucket: string): string | null {
  const limited = auth.limitedTo;
  if (limited === null || limited.includes(bucket)) return null;
  return concealmentText(limited, bucket);
}

export function ConcealedNote({ bucket }: { bucket: string }) {
  const text = concealment(bucket);
  return text ? (
    <p class="small-line" data-testid="concealed">
      {text}
    </p>
  ) : null;
}
