//! Live SM and memory clocks and slowdown reasons through NVML (microseconds a query, where
//! `nvidia-smi` spawns a process); without `libnvidia-ml.so` every read is `None`.

use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::Clock;
use std::sync::OnceLock;

/// One reading of the clocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockReading {
    /// Current SM clock, MHz.
    pub sm_mhz: u32,
    /// Current memory clock, MHz.
    pub memory_mhz: Option<u32>,
    /// NVML reports a thermal or hardware slowdown (not the power cap, a busy GPU's normal state).
    pub slowdown: bool,
}

/// The process's NVML handle (initialised once; `None` when the library or driver is missing).
fn nvml() -> Option<&'static Nvml> {
    static NVML: OnceLock<Option<Nvml>> = OnceLock::new();
    NVML.get_or_init(|| Nvml::init().ok()).as_ref()
}

/// The NVML handle of the GPU at `pci_bus_id`, looked up once (far dearer than a clock query).
fn with_device<T>(
    pci_bus_id: &str,
    f: impl FnOnce(&nvml_wrapper::Device<'static>) -> Option<T>,
) -> Option<T> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static DEVICES: OnceLock<Mutex<HashMap<String, Option<nvml_wrapper::Device<'static>>>>> =
        OnceLock::new();
    let nvml = nvml()?;
    let mut map = DEVICES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let device = map
        .entry(pci_bus_id.to_string())
        .or_insert_with(|| nvml.device_by_pci_bus_id(pci_bus_id).ok())
        .as_ref()?;
    f(device)
}

/// Reads the clocks of the GPU at `pci_bus_id` (`00000000:3B:00.0`, as `DeviceInfo` has it).
pub(crate) fn read(pci_bus_id: &str) -> Option<ClockReading> {
    use nvml_wrapper::bitmasks::device::ThrottleReasons as R;
    with_device(pci_bus_id, |device| {
        let sm_mhz = device.clock_info(Clock::SM).ok().filter(|&c| c > 0)?;
        let memory_mhz = device.clock_info(Clock::Memory).ok().filter(|&c| c > 0);
        let slowing = R::HW_SLOWDOWN
            | R::SW_THERMAL_SLOWDOWN
            | R::HW_THERMAL_SLOWDOWN
            | R::HW_POWER_BRAKE_SLOWDOWN;
        let slowdown = device
            .current_throttle_reasons()
            .map(|r| r.intersects(slowing))
            .unwrap_or(false);
        Some(ClockReading {
            sm_mhz,
            memory_mhz,
            slowdown,
        })
    })
}

#[cfg(test)]
#[path = "clocks_tests.rs"]
mod tests;
