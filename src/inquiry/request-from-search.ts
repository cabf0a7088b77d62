/** What a link asked the inquiry form for, read from the page address (?type=quote&category=tactical). */
export const requestFromSearch = (search: string) => {
  const params = new URLSearchParams(search);
  return { type: params.get("type"), category: params.get("category") };
};
