import { graphql } from "gatsby";
import { requireContent } from "../content-contract/require-content";
import { categoryOptions, complianceOptions } from "../inquiry/displayed-fields";

/** The form's content and choices, from a page query that spreads the InquiryFormData fragment below. */
export const inquiryFormProps = (data: Queries.InquiryFormDataFragment) => ({
  form: requireContent(data.inquiryJson, "content/inquiry.json"),
  categories: categoryOptions(data.allProductCategoryJson.nodes),
  complianceOptions: complianceOptions(
    requireContent(data.certificationsJson, "content/certifications.json").compliance.items,
  ),
});

/** Everything the inquiry form needs from content/inquiry.json; shared by every page that shows the form. */
export const inquiryFormFragment = graphql`
  fragment InquiryFormField on InquiryField {
    label
    hint
    placeholder
    required
    minLength
    maxLength
    autocomplete
    options {
      value
      label
    }
    errors {
      required
      invalid
      tooShort
      tooLong
    }
  }

  fragment InquiryFormContent on InquiryJson {
    heading
    detailsHeading
    requiredNote
    requiredMarker
    formFields {
      fullName {
        ...InquiryFormField
      }
      organization {
        ...InquiryFormField
      }
      email {
        ...InquiryFormField
      }
      phone {
        ...InquiryFormField
      }
      inquiryType {
        ...InquiryFormField
      }
      productCategory {
        ...InquiryFormField
      }
      quantities {
        ...InquiryFormField
      }
      needBy {
        ...InquiryFormField
      }
      shipToState {
        ...InquiryFormField
      }
      buyingMethod {
        ...InquiryFormField
      }
      compliance {
        ...InquiryFormField
      }
      message {
        ...InquiryFormField
      }
    }
    inquiryTypes {
      value
      label
    }
    defaultType
    quoteType
    submitLabel
    errorSummary
    honeypotLabel
    sendingLabel
    sent {
      title
      text
      againLabel
    }
    failed {
      title
      text
      retryLabel
      emailActionLabel
      emailSubject
    }
    tooMany {
      title
      text
    }
  }

  fragment InquiryComplianceOptions on CertificationsJson {
    compliance {
      items {
        id
        name
      }
    }
  }

  fragment InquiryFormData on Query {
    inquiryJson {
      ...InquiryFormContent
    }
    allProductCategoryJson(sort: { order: ASC }) {
      ...ProductCategoryOptions
    }
    certificationsJson {
      ...InquiryComplianceOptions
    }
  }

  fragment InquiryPageCopy on ContactPageContent {
    seo {
      title
      description
    }
    heading
    intro
  }
`;
