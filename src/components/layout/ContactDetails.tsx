import { css } from "@emotion/react";
import { Clock, Mail, MapPin, Phone } from "lucide-react";
import { space } from "../../styles/theme";
import type { Company } from "../../hooks/use-site-data";

interface ContactDetailsProps {
  company: Pick<Company, "contact" | "contactLabels" | "hours">;
  /** Colour and link styles come from the surface this sits on. */
  className?: string;
}

const listStyles = css`
  display: grid;
  gap: ${space.md};
  margin: 0;
  dt {
    display: flex;
    align-items: center;
    gap: ${space.sm};
    font-weight: 700;
  }
  dd {
    margin: 0.125rem 0 0 calc(20px + ${space.sm});
  }
  address {
    font-style: normal;
  }
`;

/** Address, phone, email and hours: the same facts in the footer and beside the inquiry form. */
export const ContactDetails = ({ company, className }: ContactDetailsProps) => {
  const { contact, contactLabels: labels, hours } = company;
  const { address } = contact;
  return (
    <dl css={listStyles} className={className}>
      <div>
        <dt>
          <MapPin aria-hidden="true" size={20} />
          {labels.address}
        </dt>
        <dd>
          <address>
            {address.street}
            <br />
            {address.locality}, {address.region} {address.postalCode}
          </address>
        </dd>
      </div>
      <div>
        <dt>
          <Phone aria-hidden="true" size={20} />
          {labels.phone}
        </dt>
        <dd>
          <a href={`tel:${contact.phone.tel}`}>{contact.phone.display}</a>
        </dd>
      </div>
      <div>
        <dt>
          <Mail aria-hidden="true" size={20} />
          {labels.email}
        </dt>
        <dd>
          <a href={`mailto:${contact.email}`}>{contact.email}</a>
        </dd>
      </div>
      <div>
        <dt>
          <Clock aria-hidden="true" size={20} />
          {labels.hours}
        </dt>
        <dd>{hours.display}</dd>
      </div>
    </dl>
  );
};
