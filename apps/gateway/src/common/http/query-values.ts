/** Form and query values arrive as strings: "true"/"1" and "false"/"0" become booleans, anything else stays and fails. */
export const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (value === 'true' || value === '1' || value === true) return true;
  if (value === 'false' || value === '0' || value === false) return false;
  return value;
};
