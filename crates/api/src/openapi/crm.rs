//! The OpenAPI part of customer management, merged into the whole document.

use utoipa::OpenApi;

use crate::routes::crm::{
    companies, customer_lifecycle, customers, deal_stages, deals, interaction_edits, interactions,
};

#[derive(OpenApi)]
#[openapi(
    paths(
        customers::create_customer, customers::list_customers, customers::get_customer_by_email,
        customers::get_customer, customers::update_customer, customers::delete_customer,
        customer_lifecycle::qualify, customer_lifecycle::convert, customer_lifecycle::churn,
        customer_lifecycle::reactivate, customer_lifecycle::set_status, customer_lifecycle::assign,
        customer_lifecycle::assign_put,
        customer_lifecycle::change_tier, customer_lifecycle::set_tags,
        companies::create_company, companies::list_companies, companies::get_company, companies::update_company,
        companies::delete_company,
        deals::create_deal, deals::list_deals, deals::deals_in_stage, deals::pipeline_stats, deals::won_stats,
        deals::get_deal, deals::delete_deal, deals::update_basic_info, deals::update_value,
        deal_stages::move_stage, deal_stages::win, deal_stages::lose,
        interactions::create_interaction, interactions::list_interactions, interactions::by_customer,
        interactions::by_company, interactions::by_type, interactions::by_creator, interactions::follow_ups,
        interactions::get_interaction, interactions::delete_interaction,
        interaction_edits::update_content, interaction_edits::set_outcome, interaction_edits::end_interaction,
        interaction_edits::set_follow_up, interaction_edits::add_attendee, interaction_edits::remove_attendee,
    ),
    tags((name = "customer management", description = "Customers, companies, deals and interactions \
        (permissions customers|companies|deals|interactions : create|read|update|delete)"))
)]
pub struct CrmDoc;
